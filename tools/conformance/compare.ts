/** Comparing a response with a case's expectations, and describing the differences readably. */
import { createTwoFilesPatch } from 'diff';
import { stringify as stringifyLossless } from 'lossless-json';
import { isDeepStrictEqual } from 'node:util';
import { parseJson, type ConformanceCase } from './spec.js';

/** Drops properties whose value is undefined (absent and undefined are the same in the reference's comparison). */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = normalize(v);
    }
    return out;
  }
  return value;
}

export function pretty(value: unknown): string {
  return stringifyLossless(normalize(value), undefined, 2) ?? 'undefined';
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** The differences between the response and the case, empty when it passes. */
export function compare(testCase: ConformanceCase, response: Response): string[] {
  const problems: string[] = [];
  if (response.status !== testCase.status) problems.push(`status ${response.status}, expected ${testCase.status}`);

  const contentType = String(response.headers['content-type'] ?? '');
  if (contentType.includes('json')) {
    let actual: unknown;
    try {
      actual = parseJson(response.body);
    } catch {
      problems.push(`body is not JSON: ${response.body.slice(0, 200)}`);
      return problems;
    }
    if (!isDeepStrictEqual(normalize(actual), normalize(testCase.body))) {
      const patch = createTwoFilesPatch('expected', 'actual', pretty(testCase.body) + '\n', pretty(actual) + '\n', '', '', { context: 3 });
      problems.push('body differs:\n' + patch.split('\n').slice(4).join('\n'));
    }
  } else if (typeof testCase.body === 'string' ? response.body !== testCase.body : true) {
    problems.push(`content type ${contentType || '(none)'} with body ${response.body.slice(0, 200)}`);
  }

  if (response.status >= 200 && response.status < 300) {
    for (const [name, value] of Object.entries(testCase.headers)) {
      const actual = response.headers[name.toLowerCase()];
      if (String(actual) !== value)
        problems.push(`header ${name}: ${actual === undefined ? '(absent)' : String(actual)}, expected ${value}`);
    }
  }
  return problems;
}
