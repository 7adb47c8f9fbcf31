/**
 * Database-specific types read as the built-in types they stand for.
 *
 * A mirror node database declares DOMAIN types over bigint, integer, smallint and char(1) on dozens
 * of columns, and enum types. PostgreSQL describes a column of a domain type with its base type, but
 * an expression over it, such as `array_agg(amount)`, has the array-of-domain type, and an enum
 * has a type of its own: their type ids differ in every database, so parsers keyed by the built-in
 * ids miss them. Each database's catalog is read once and every such type gets the parser of the
 * built-in type it stands for (an enum reads as text).
 */
import { splittingArrayParser } from './typeParsers.js';

export type TextParser = (text: string) => unknown;

/** Type ids below this are PostgreSQL's own; every type a schema creates has one at or above it. */
export const FIRST_NORMAL_OID = 16384;
const TEXT = 25;

/** Every domain and enum, and every array type over one, with what each is built on. */
export const TYPE_CATALOG_SQL = `select t.oid::int4 as oid, t.typtype::text as kind, t.typbasetype::int4 as base, t.typelem::int4 as element
  from pg_catalog.pg_type t
 where t.oid >= ${FIRST_NORMAL_OID}
   and (t.typtype in ('d', 'e')
        or (t.typcategory = 'A' and exists (select 1 from pg_catalog.pg_type e where e.oid = t.typelem and e.typtype in ('d', 'e'))))`;

export interface CatalogRow {
  oid: number;
  /** `d` domain, `e` enum, `b` (an array type) */
  kind: string;
  base: number;
  element: number;
}

/** A built-in type, or an array of one, that a database-specific type reads as. */
type Standing = { scalar: number } | { arrayOf: number };

function standingOf(oid: number, rows: ReadonlyMap<number, CatalogRow>, depth = 0): Standing | undefined {
  if (oid < FIRST_NORMAL_OID) return { scalar: oid };
  const row = rows.get(oid);
  if (!row || depth > 8) return undefined;
  if (row.kind === 'e') return { scalar: TEXT };
  if (row.kind === 'd') return standingOf(row.base, rows, depth + 1);
  const element = standingOf(row.element, rows, depth + 1);
  return element && 'scalar' in element ? { arrayOf: element.scalar } : undefined;
}

/**
 * The parser of every type of `rows`, from the backend's parser of a built-in type and its general
 * parser of array literals given an element parser.
 */
export function catalogParsers(
  rows: readonly CatalogRow[],
  scalarParser: (oid: number) => TextParser,
  generalArray: (element: TextParser) => TextParser,
): Map<number, TextParser> {
  const byOid = new Map(rows.map((r) => [r.oid, r]));
  const parsers = new Map<number, TextParser>();
  for (const row of rows) {
    const standing = standingOf(row.oid, byOid);
    if (!standing) continue;
    if ('scalar' in standing) {
      parsers.set(row.oid, scalarParser(standing.scalar));
    } else {
      const element = scalarParser(standing.arrayOf);
      parsers.set(row.oid, splittingArrayParser(element, generalArray(element)));
    }
  }
  return parsers;
}

export interface ResultField {
  name: string;
  dataTypeID: number;
}

/** The fields of a result whose type a schema created and `known` does not hold. */
export function unknownFields(fields: readonly ResultField[], known: (oid: number) => boolean): ResultField[] {
  return fields.filter((f) => f.dataTypeID >= FIRST_NORMAL_OID && !known(f.dataTypeID));
}

/**
 * Parses again, in place, the values of `fields` that the driver left as text because their type
 * was not known when the result arrived (a type created after the catalog was read).
 */
export function reparse(
  rows: Record<string, unknown>[],
  fields: readonly ResultField[],
  parserOf: (oid: number) => TextParser | undefined,
): void {
  for (const field of fields) {
    const parse = parserOf(field.dataTypeID);
    if (!parse) continue;
    for (const row of rows) {
      const value = row[field.name];
      if (typeof value === 'string') row[field.name] = parse(value);
    }
  }
}
