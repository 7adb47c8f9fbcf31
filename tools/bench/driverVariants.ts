/**
 * The database clients `bench driver` compares, each as a Queryable running the service's statements
 * on one connection: the service's own Db, node-postgres used plainly (object rows, or array rows
 * turned into objects by a decoder compiled per statement), and the `postgres` package. Every one
 * parses values as the service does (int8 as bigint, json with exact integers, the splitting array
 * parsers), so that their answers can be compared value for value.
 */
import pg from 'pg';
import postgres from 'postgres';
import type { Queryable, Row } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/postgres.js';
import { OID, ownParsers, parseJsonExact } from '../../src/db/typeParsers.js';

export const VARIANTS = ['service', 'pg-objects', 'pg-arrays', 'postgres-js'] as const;
export type VariantName = (typeof VARIANTS)[number];

export const VARIANT_DESCRIPTIONS: Record<VariantName, string> = {
  service:
    "the service's Db (src/db/postgres.ts): named statements, executed without Describe after the first time, rows decoded with recorded parsers",
  'pg-objects': 'node-postgres as documented: pool.query with a name, object rows (Describe and parsers looked up on every execution)',
  'pg-arrays': "node-postgres with rowMode 'array' and a name, rows turned into objects by a decoder compiled once per statement",
  'postgres-js': 'the `postgres` package, prepared statements (unsafe with prepare: true), the same parsers',
};

/** generous: under valgrind the first connection and its setup run many times slower */
const CONNECT_TIMEOUT_MS = 120_000;

export interface Variant {
  db: Queryable;
  close(): Promise<void>;
}

type TextParser = (text: string) => unknown;

const generalArrayParser = pg.types.arrayParser as unknown as {
  create(text: string, element: TextParser): { parse(): unknown[] };
};
const parsers = ownParsers((element) => (text) => generalArrayParser.create(text, element).parse());
const pgTypes = {
  getTypeParser: ((oid: number) => parsers[oid] ?? pg.types.getTypeParser(oid, 'text')) as typeof pg.types.getTypeParser,
};

/** A decoder of array rows into objects with `names` as keys, compiled so that every row has one shape. */
function compileObjectBuilder(names: readonly string[]): (values: unknown[]) => Row {
  const body = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  return new Function(`return (v) => ({ ${body} })`)() as (values: unknown[]) => Row;
}

/** A short name per statement text, as the service gives (one prepared statement per text and connection). */
function namer(): (text: string) => string {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined) {
      name = `bench_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
}

export async function openVariant(name: VariantName, url: string): Promise<Variant> {
  switch (name) {
    case 'service': {
      const db = await openPostgres({ url, poolSize: 1, statementTimeoutMs: 0, connectionTimeoutMs: CONNECT_TIMEOUT_MS });
      return { db, close: () => db.close() };
    }
    case 'pg-objects': {
      const pool = new pg.Pool({ connectionString: url, max: 1, types: pgTypes, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      const nameOf = namer();
      return {
        db: {
          query: async <R = Row>(text: string, params: readonly unknown[] = []) =>
            (await pool.query({ name: nameOf(text), text, values: params as unknown[] })).rows as R[],
        },
        close: () => pool.end(),
      };
    }
    case 'pg-arrays': {
      const pool = new pg.Pool({ connectionString: url, max: 1, types: pgTypes, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      const nameOf = namer();
      const builders = new Map<string, (values: unknown[]) => Row>();
      return {
        db: {
          async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
            const name = nameOf(text);
            const result = await pool.query<unknown[]>({ name, text, values: params as unknown[], rowMode: 'array' });
            let build = builders.get(name);
            if (!build) {
              build = compileObjectBuilder(result.fields.map((f) => f.name));
              builders.set(name, build);
            }
            const rows = result.rows;
            const out = new Array<R>(rows.length);
            for (let i = 0; i < rows.length; i++) out[i] = build(rows[i]!) as R;
            return out;
          },
        },
        close: () => pool.end(),
      };
    }
    case 'postgres-js': {
      const sql = postgres(url, {
        max: 1,
        prepare: true,
        connect_timeout: CONNECT_TIMEOUT_MS / 1000,
        onnotice: () => undefined,
        types: {
          bigint: { to: OID.INT8, from: [OID.INT8], parse: (text: string) => BigInt(text), serialize: (v: bigint) => v.toString() },
          json: {
            to: OID.JSON,
            from: [OID.JSON, OID.JSONB],
            parse: parseJsonExact,
            serialize: (v: unknown) => JSON.stringify(v),
          },
        },
      });
      return {
        db: {
          // its result is an Array (a subclass with the command's details), used as the rows
          query: async <R = Row>(text: string, params: readonly unknown[] = []) =>
            (await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as R[],
        },
        close: () => sql.end({ timeout: 5 }),
      };
    }
  }
}
