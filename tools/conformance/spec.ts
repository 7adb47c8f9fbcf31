/** Reading the reference's spec files and expanding them into one case per URL (and matrix value). */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse as parseLossless, isSafeNumber } from 'lossless-json';

/** JSON with integers beyond 2^53 kept exact as bigint. */
export function parseJson(text: string): unknown {
  return parseLossless(text, null, (value: string) => {
    if (isSafeNumber(value)) return Number(value);
    return /^-?\d+$/.test(value) ? BigInt(value) : Number(value);
  });
}

type Json = Record<string, unknown>;

export interface ConformanceCase {
  file: string;
  /** folder relative to the spec root, e.g. `accounts/{id}` */
  group: string;
  name: string;
  url: string;
  setup: Json;
  /** settings of the case on top of setup.config (test config, matrix value) */
  config: Json[];
  requestHeaders: Record<string, string>;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const DEFAULT_HEADERS = { 'cache-control': 'public, max-age=1' };

export function findSpecFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findSpecFiles(path));
    else if (entry.endsWith('.json') && entry !== 'responseHeaders.json') out.push(path);
  }
  return out;
}

/** The nearest responseHeaders.json from the spec's folder up to the root, else the default. */
function inheritedHeaders(file: string, root: string): Record<string, string> {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const path = join(dir, 'responseHeaders.json');
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'));
    if (relative(root, dir) === '' || dir === dirname(dir)) return DEFAULT_HEADERS;
  }
}

const MATRICES: Record<string, { label: string; config: Json }[]> = {
  'bindTimestampRangeMatrix.js': [
    { label: 'bindTimestampRange=false', config: { query: { bindTimestampRange: false } } },
    { label: 'bindTimestampRange=true', config: { query: { bindTimestampRange: true } } },
  ],
};

export function loadCases(file: string, root: string): ConformanceCase[] {
  const spec = parseJson(readFileSync(file, 'utf8')) as Json;
  const group = relative(root, dirname(file)) || '.';
  const setup = (spec.setup ?? {}) as Json;
  const baseHeaders = inheritedHeaders(file, root);
  const tests = (Array.isArray(spec.tests) ? spec.tests : [spec]) as Json[];
  const matrix = typeof spec.matrix === 'string' ? MATRICES[spec.matrix] : undefined;
  if (typeof spec.matrix === 'string' && !matrix) throw new Error(`${file}: unknown matrix ${spec.matrix}`);
  const variants = matrix ?? [{ label: '', config: {} }];

  const cases: ConformanceCase[] = [];
  for (const [index, test] of tests.entries()) {
    const urls = (Array.isArray(test.urls) ? test.urls : [test.url]) as string[];
    for (const variant of variants) {
      const override = variant.label ? ((test.responseJsonMatrix as Json | undefined)?.[variant.label] as Json | undefined) : undefined;
      const body = override ? { ...(test.responseJson as Json), ...override } : test.responseJson;
      for (const url of urls) {
        const title = (test.testCaseName as string | undefined) ?? (tests.length > 1 ? `test ${index + 1}` : '');
        cases.push({
          file,
          group,
          name: [relative(root, file), title, url, variant.label].filter(Boolean).join(' · '),
          url,
          setup,
          config: [(test.config as Json | undefined) ?? {}, variant.config],
          requestHeaders: (test.requestHeaders as Record<string, string> | undefined) ?? {},
          status: Number(test.responseStatus),
          body,
          headers: { ...baseHeaders, ...((test.responseHeaders as Record<string, string> | undefined) ?? {}) },
        });
      }
    }
  }
  return cases;
}
