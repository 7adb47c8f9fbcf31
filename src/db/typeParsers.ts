import { parse as parseLossless, isSafeNumber } from 'lossless-json';

/** PostgreSQL type oids whose text form we parse ourselves on both backends. */
export const OID = {
  INT8: 20,
  INT8_ARRAY: 1016,
  JSON: 114,
  JSONB: 3802,
} as const;

export const parseInt8 = (text: string): bigint => BigInt(text);

/** JSON text with integers beyond 2^53 kept as bigint. */
export function parseJsonExact(text: string): unknown {
  return parseLossless(text, null, (value: string) => {
    if (isSafeNumber(value)) return Number(value);
    return /^-?\d+$/.test(value) ? BigInt(value) : Number(value);
  });
}

/** Parses a one-dimensional int8 array literal such as `{1,2,NULL}`. */
export function parseInt8Array(text: string): (bigint | null)[] {
  const body = text.slice(1, -1).trim();
  if (body === '') return [];
  return body.split(',').map((v) => (v === 'NULL' ? null : BigInt(v)));
}
