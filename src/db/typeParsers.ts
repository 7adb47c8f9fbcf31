import { parse as parseLossless, isSafeNumber } from 'lossless-json';

/** PostgreSQL type oids whose text form we parse ourselves on both backends. */
export const OID = {
  INT8: 20,
  JSON: 114,
  JSONB: 3802,
  BOOL_ARRAY: 1000,
  INT2_ARRAY: 1005,
  INT4_ARRAY: 1007,
  TEXT_ARRAY: 1009,
  VARCHAR_ARRAY: 1015,
  INT8_ARRAY: 1016,
} as const;

export const parseInt8 = (text: string): bigint => BigInt(text);

/** JSON text with integers beyond 2^53 kept as bigint. */
export function parseJsonExact(text: string): unknown {
  return parseLossless(text, null, (value: string) => {
    if (isSafeNumber(value)) return Number(value);
    return /^-?\d+$/.test(value) ? BigInt(value) : Number(value);
  });
}

type TextParser = (text: string) => unknown;

/** An array type's element parser (never given NULL). */
const ARRAY_ELEMENTS: Record<number, (text: string) => unknown> = {
  [OID.BOOL_ARRAY]: (text) => text === 't',
  [OID.INT2_ARRAY]: Number,
  [OID.INT4_ARRAY]: Number,
  [OID.TEXT_ARRAY]: (text) => text,
  [OID.VARCHAR_ARRAY]: (text) => text,
  [OID.INT8_ARRAY]: parseInt8,
};

const OPEN_BRACE = 123;

/**
 * A parser of one-dimensional array literals such as `{1,2,NULL}` or `{ab12,cd34}` (the hex text of
 * contract logs) that splits at commas, handing anything else to the backend's general parser.
 * PostgreSQL quotes every element that holds a comma, brace, quote, backslash or white space, is
 * empty or reads NULL: a literal without quotes and without nested braces is therefore a plain
 * comma-separated list in which an unquoted NULL is the null element. The general array parsers
 * read a literal character by character in JavaScript, which the logs of a contract result make
 * costly (tools/bench/README.md).
 */
export function splittingArrayParser(element: (text: string) => unknown, general: TextParser): TextParser {
  return (text) => {
    if (text.charCodeAt(0) !== OPEN_BRACE || text.includes('"') || text.indexOf('{', 1) !== -1) return general(text);
    if (text.length === 2) return [];
    const parts: unknown[] = text.slice(1, -1).split(',');
    for (let i = 0; i < parts.length; i++) parts[i] = parts[i] === 'NULL' ? null : element(parts[i] as string);
    return parts;
  };
}

/**
 * The parsers both backends use in place of their own, given each backend's general parser of an
 * array type's literals with an element parser.
 */
export function ownParsers(generalArray: (element: (text: string) => unknown) => TextParser): Record<number, TextParser> {
  const parsers: Record<number, TextParser> = { [OID.INT8]: parseInt8, [OID.JSON]: parseJsonExact, [OID.JSONB]: parseJsonExact };
  for (const [oid, element] of Object.entries(ARRAY_ELEMENTS)) {
    parsers[Number(oid)] = splittingArrayParser(element, generalArray(element));
  }
  return parsers;
}
