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
 */
export function shapeKey(args: readonly unknown[]): string {
  return JSON.stringify(args, function (this: Record<string, unknown>, key) {
    // the value before toJSON (which turns a Buffer into a plain object and a Date into a string)
    const value = this[key];
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (Number.isSafeInteger(value)) return value;
        break;
      case 'object': {
        if (value === null || Array.isArray(value)) return value;
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) break;
        const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return Object.fromEntries(entries);
      }
    }
    throw new TypeError(`a statement shape is described by placeholders, names, flags and counts, not by a ${describe(value)}`);
  });
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
