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

/** Shapes beyond this many are assembled each time instead of kept (a guard against a key holding a value). */
const MAX_SHAPES = 1000;
const texts = new Map<string, string>();

/**
 * The text of the statement shape `key`, assembled by `build` the first time. A text assembled per
 * request is a new string each time, which the statement naming (a map keyed by text) and the
 * driver's check that a named statement is prepared both read in full: a few kilobytes per request
 * for the larger statements. The same string object hashes and compares at once.
 *
 * The key must name every input the text depends on, including the order in which `build`'s
 * caller added parameters; values never belong in it, they travel as parameters.
 */
export function statementText(key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    if (texts.size < MAX_SHAPES) texts.set(key, text);
  }
  return text;
}

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
