/**
 * The schema the generator meets, read from the catalog: the project's own (src/db/migrations) or
 * a mirror node's (its production schema, created by the mirror node's migrations). The rows are
 * the same; only the columns written differ where the tables differ (a mirror node's
 * `record_file` has no `node_id`, for example).
 */
import type { Queryable } from '../../src/db/db.js';
import { TABLES, type TableKey, type TableLayout, type TableLayouts } from './tables.js';

export interface SchemaFit {
  layouts: TableLayouts;
  /** `table.column` the generator produces but the database lacks (left out of the load) */
  skipped: string[];
}

export class SchemaMismatch extends Error {}

interface ColumnRow {
  table: string;
  column: string;
  required: boolean;
}

/**
 * Matches `TABLES` to the tables of the current schema. A generated column the table lacks is
 * left out; a table that is missing, or a NOT NULL column without a default that the generator
 * does not write, is an error (the load would fail on it half-way).
 */
export async function fitSchema(db: Queryable): Promise<SchemaFit> {
  const names = Object.values(TABLES).map((t) => t.name);
  const rows = await db.query<ColumnRow>(
    `select c.relname as table, a.attname as column,
            (a.attnotnull and not a.atthasdef and a.attidentity = '' and a.attgenerated = '') as required
     from pg_attribute a
     join pg_class c on c.oid = a.attrelid
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relname = any($1) and c.relkind in ('r', 'p')
       and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''`,
    [names],
  );
  const columns = new Map<string, Map<string, boolean>>();
  for (const r of rows) {
    let table = columns.get(r.table);
    if (!table) {
      table = new Map();
      columns.set(r.table, table);
    }
    table.set(r.column, r.required);
  }
  const layouts: TableLayouts = {};
  const skipped: string[] = [];
  const problems: string[] = [];
  for (const [key, spec] of Object.entries(TABLES) as [TableKey, (typeof TABLES)[TableKey]][]) {
    const present = columns.get(spec.name);
    if (!present) {
      problems.push(`table ${spec.name} is missing`);
      continue;
    }
    const generated: readonly string[] = spec.columns;
    for (const [column, required] of present)
      if (required && !generated.includes(column)) problems.push(`${spec.name}.${column} is NOT NULL without a default and not generated`);
    const pick = generated.flatMap((column, i) => (present.has(column) ? [i] : []));
    if (pick.length === generated.length) continue;
    for (const column of generated) if (!present.has(column)) skipped.push(`${spec.name}.${column}`);
    const layout: TableLayout = { spec: { name: spec.name, columns: pick.map((i) => generated[i]!) }, pick };
    layouts[key] = layout;
  }
  if (problems.length > 0) throw new SchemaMismatch(`the database's schema does not fit the generator: ${problems.join('; ')}`);
  return { layouts, skipped };
}
