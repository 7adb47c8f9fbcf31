/** Test access to the app over a private database; the backend comes from LQS_TEST_BACKEND (pglite by default). */
import { after, before } from 'node:test';
import { Harness, REFERENCE_TEST_CONFIG, type Backend, type HarnessOptions } from '../../tools/testApp/harness.js';
import { parseJson } from '../../tools/conformance/spec.js';
import { schemaKindOf } from '../../tools/db/scratch.js';
import { postgresServerSkipReason } from './privatePostgres.js';

export const backend: Backend = process.env.LQS_TEST_BACKEND === 'postgres' ? 'postgres' : 'pglite';

/**
 * Why a suite that ingests into the harness's database skips on the mirror node schema
 * (LQS_TEST_SCHEMA=mirror): the ingester refuses a mirror node database, which its importer writes.
 */
export const ingestionSkipReason: string | false =
  backend === 'postgres' && schemaKindOf(process.env.LQS_TEST_SCHEMA) === 'mirror' ? 'a mirror node database is never written' : false;

// asked for explicitly, the postgres backend without its server fails the file with one line, not each test with a stack
if (backend === 'postgres') {
  const missing = await postgresServerSkipReason();
  if (missing) {
    process.stderr.write(`LQS_TEST_BACKEND=postgres ${missing}\n`);
    process.exit(1);
  }
}

/**
 * Opens one harness for the enclosing test file (or suite) and closes it afterwards; `options`
 * override the backend and schema of the environment (LQS_TEST_*).
 */
export function useHarness(
  baseConfig: Record<string, unknown> = REFERENCE_TEST_CONFIG,
  options: Partial<Omit<HarnessOptions, 'baseConfig'>> = {},
): () => Harness {
  let harness: Harness | undefined;
  before(async () => {
    harness = await Harness.open({ backend, ...options, baseConfig });
  });
  after(async () => {
    await harness?.close();
  });
  return () => {
    if (!harness) throw new Error('harness not open yet');
    return harness;
  };
}

export interface JsonResponse {
  status: number;
  headers: Record<string, unknown>;
  body: any;
  text: string;
}

/** GET through Fastify's inject; the body is parsed with big integers kept exact. */
export async function get(harness: Harness, url: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const res = await harness.app.inject({ method: 'GET', url, headers });
  const isJson = String(res.headers['content-type'] ?? '').includes('json');
  return { status: res.statusCode, headers: res.headers, body: isJson ? parseJson(res.body) : undefined, text: res.body };
}

export function errorOf(...messages: string[]) {
  return { _status: { messages: messages.map((message) => ({ message })) } };
}
