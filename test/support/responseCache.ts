/** Fixtures and clients of the response cache's tests. */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { configWith, type Config } from '../../src/config.js';
import { type Harness, REFERENCE_TEST_CONFIG } from '../../tools/testApp/harness.js';
import { createLogger } from '../../src/logger.js';

export const BLOCKS = 12;
export const START = 1_676_540_001_000_000_000n;
export const hashOf = (i: number) => i.toString(16).padStart(2, '0').repeat(48);

export function blocks(count = BLOCKS) {
  return {
    recordFiles: Array.from({ length: count }, (_, i) => ({
      index: i,
      consensus_start: (START + BigInt(i) * 1000n).toString(),
      consensus_end: (START + BigInt(i) * 1000n + 999n).toString(),
      hash: hashOf(i),
      prev_hash: i === 0 ? '0'.repeat(96) : hashOf(i - 1),
      gas_used: i * 10,
    })),
  };
}

/**
 * What a client sees: status, every header (Date apart) and the body's bytes. The request id is the caller's, so
 * that two answers compare byte for byte (a generated one differs per request).
 */
export async function fetchRaw(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'response-cache-test', ...headers } });
  // `date` is the second each answer was sent: two answers compared across a second boundary
  // differ there although they are the same answer, so it is kept apart from the other headers
  const { date, ...rest } = res.headers;
  return { status: res.statusCode, headers: rest, date, body: res.rawPayload };
}

export async function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * An app over `db` with the cache's Redis at `url`, logging into `lines`. Connecting may take as
 * long as a lookup (`timeoutMs`, at least 200 ms): a patient test must not meet a connect timeout,
 * which counts as an error and logs a warning, because the machine is loaded.
 */
export async function appWithRedis(
  h: Harness,
  url: string,
  lines: string[],
  prefix: string,
  { level = 'warn', timeoutMs = 50 }: { level?: 'warn' | 'info'; timeoutMs?: number } = {},
): Promise<FastifyInstance> {
  const config: Config = configWith(
    { cache: { enabled: true, redis: { url, keyPrefix: prefix, timeoutMs, backoffMs: 200, connectTimeoutMs: Math.max(200, timeoutMs) } } },
    configWith(REFERENCE_TEST_CONFIG),
  );
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ config, db: h.db, clock: h.clock, logger: createLogger(level, sink) });
  await app.ready();
  return app;
}

export async function until(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}
