/**
 * One INSERT per table and file: each column's values travel as one array parameter, which the
 * server unnests into rows. The statement's text depends only on the table and its columns (short
 * to parse and the same for every file, however many rows), where VALUES lists grow with the rows.
 * The arrays' element types are read from the catalog once per database; the arrays are sent as
 * array literals (text), which both drivers pass through as they are.
 */
import type { Db, Queryable } from '../../db/db.js';
import type { ColumnValues } from '../../ledgerSetup/insert.js';

const columnTypes = new WeakMap<Db, Map<string, Promise<Map<string, string>>>>();

async function readColumnTypes(db: Queryable, table: string): Promise<Map<string, string>> {
  const rows = await db.query<{ name: string; type: string }>(
    `select attname as name, format_type(atttypid, atttypmod) as type
       from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
    [table],
  );
  return new Map(rows.map((r) => [r.name, r.type]));
}

/** The types of `table`'s columns in `db`, read once through `tx` (a failed read is tried again next time). */
function typesOf(db: Db, tx: Queryable, table: string): Promise<Map<string, string>> {
  let tables = columnTypes.get(db);
  if (!tables) {
    tables = new Map();
    columnTypes.set(db, tables);
  }
  let types = tables.get(table);
  if (!types) {
    types = readColumnTypes(tx, table);
    tables.set(table, types);
    types.catch(() => tables.delete(table));
  }
  return types;
}

/** One array element as an array literal writes it. */
function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Uint8Array) return `"\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}"`;
  if (typeof value === 'string') return `"${value.replace(/["\\]/g, '\\$&')}"`;
  throw new Error(`no array literal for a ${typeof value}`);
}

/** A PostgreSQL array literal of `values`. */
export function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(element).join(',')}}`;
}

/** The statement and its parameters inserting `rows` (all with the first row's columns) into `table`. */
export function columnInsert(
  table: string,
  types: ReadonlyMap<string, string>,
  rows: readonly ColumnValues[],
): { text: string; params: string[] } {
  const columns = Object.keys(rows[0]!);
  const arrays = columns.map((c, i) => {
    const type = types.get(c);
    if (type === undefined) throw new Error(`${table} has no column ${c}`);
    return `$${i + 1}::${type}[]`;
  });
  return {
    text: `insert into ${table} (${columns.map((c) => `"${c}"`).join(', ')}) select * from unnest(${arrays.join(', ')})`,
    params: columns.map((c) => arrayLiteral(rows.map((row) => row[c]))),
  };
}

/** Inserts `rows` into `table` in one statement on `tx`, a transaction of `db`. */
export async function insertColumns(db: Db, tx: Queryable, table: string, rows: readonly ColumnValues[]): Promise<void> {
  if (rows.length === 0) return;
  const { text, params } = columnInsert(table, await typesOf(db, tx, table), rows);
  await tx.query(text, params);
}
