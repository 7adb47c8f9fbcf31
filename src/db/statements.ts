/** Assembling statement texts: positional parameters, and one text per statement shape. */

/** Positional parameters collected while a statement's text is assembled. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Shapes kept per builder; beyond this many a text is assembled each time (a guard against a key that varies with a value). */
const MAX_SHAPES_PER_BUILDER = 1000;

/**
 * The canonical key of a builder's arguments: JSON with object keys sorted. Arguments describe a
 * shape: placeholders (`$3`), names from a closed set (an order, a column, an operator), flags,
 * counts, and arrays and plain objects of these. Anything else throws, which refuses the values a
 * statement reads (ids and timestamps are bigints, bytes are buffers): they travel as parameters.
 * Written out by hand rather than through JSON.stringify with a replacer: every statement of every
 * request derives its key, and the replacer's call per value made that a visible share of the
 * service's CPU on list pages (tools/bench/README.md).
 */
export function shapeKey(args: readonly unknown[]): string {
  return keyOf(args);
}

function keyOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (Number.isSafeInteger(value)) return String(value);
      break;
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + keyOf(value[i]);
        return out + ']';
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) break;
      const names = sortedNames(Object.keys(value));
      let out = '{';
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        out += (i === 0 ? '' : ',') + quoted(name) + ':' + keyOf((value as Record<string, unknown>)[name]);
      }
      return out + '}';
    }
  }
  throw new TypeError(`a statement shape is described by placeholders, names, flags and counts, not by a ${describe(value)}`);
}

/** What JSON escapes in a string: control characters, quotes, backslashes and (lone) surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A string as JSON text; most are names and placeholders with nothing to escape, which JSON.stringify is slow to find. */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** `names` sorted in place as Array.prototype.sort() would: a shape's objects have a handful of keys, where an insertion sort is the quicker. */
function sortedNames(names: string[]): string[] {
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!;
    let j = i - 1;
    for (; j >= 0 && names[j]! > name; j--) names[j + 1] = names[j]!;
    names[j + 1] = name;
  }
  return names;
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return typeof value;
  return value.constructor?.name ?? 'object';
}

/**
 * `build` with its texts kept per distinct arguments: the same shape gives the same string object,
 * so that the statement naming (a map keyed by text) and the driver's check that a named statement
 * is prepared compare it at once instead of reading a text assembled per request in full. The key
 * is derived from every argument, so a text cannot be served for inputs it was not built from;
 * arguments describe the shape (see shapeKey), never the values bound to placeholders.
 */
export function statementShape<A extends readonly unknown[]>(build: (...args: A) => string): (...args: A) => string {
  const texts = new Map<string, string>();
  return (...args: A) => {
    const key = shapeKey(args);
    let text = texts.get(key);
    if (text === undefined) {
      text = build(...args);
      if (texts.size < MAX_SHAPES_PER_BUILDER) texts.set(key, text);
    }
    return text;
  };
}

/** The SQL comparison of each filter operator. */
export const SQL_OPERATORS = { eq: '=', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;
export type SqlOperator = (typeof SQL_OPERATORS)[keyof typeof SQL_OPERATORS];

/** `<expression> as <name>, …` for each entry of `columns`. */
export function selectList(columns: Record<string, string>): string {
  return Object.entries(columns)
    .map(([name, expression]) => `${expression} as ${name}`)
    .join(', ');
}

/**
 * `select array_agg(sorted.<column>) as <prefix><column>, … from (<sortedRows>) sorted`: one array per
 * column of a subquery that sorts its rows, so that the arrays line up in that order. PostgreSQL 15
 * runs a sort of its own for every aggregate with an ORDER BY; here the subquery sorts once (a
 * subquery with ORDER BY is never flattened, and a plain aggregate reads its rows in that order).
 */
export function arraysOf(sortedRows: string, columns: readonly string[], prefix = ''): string {
  return `select ${columns.map((c) => `array_agg(sorted.${c}) as ${prefix}${c}`).join(', ')} from (${sortedRows}) sorted`;
}
