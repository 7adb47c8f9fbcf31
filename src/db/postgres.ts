import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Db, Queryable, Row } from './db.js';
import { ownParsers } from './typeParsers.js';

/** pg-types' general array parser; its typings declare a function where the module exports `{ create }`. */
const generalArrayParser = pg.types.arrayParser as unknown as { create(text: string, element: (text: string) => unknown): { parse(): unknown[] } };

const parsers = ownParsers((element) => (text) => generalArrayParser.create(text, element).parse());

const types = {
  getTypeParser(oid: number, format?: string) {
    return parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text');
  },
};

export interface PostgresOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectionTimeoutMs: number;
  onError?: (err: Error) => void;
}

/** Distinct statement texts given a name; past this, statements run unnamed (planned each time). */
const MAX_NAMED_STATEMENTS = 2000;

/**
 * Names statements so that each connection prepares a statement once and PostgreSQL can reuse its
 * plan: planning costs as much as executing the typical API query.
 */
function statementNamer(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
      name = 'lqs_' + createHash('sha1').update(text).digest('hex').slice(0, 24);
      names.set(text, name);
    }
    return name;
  };
}

export async function openPostgres(options: PostgresOptions): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    statement_timeout: options.statementTimeoutMs || undefined,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'ledger-query-service',
    types,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => options.onError?.(err));

  const nameOf = statementNamer();
  const run = async <R>(client: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[] = []) =>
    (await client.query({ name: nameOf(text), text, values: params as unknown[] })).rows as R[];

  return {
    backend: 'postgres',
    query: <R = Row>(text: string, params?: readonly unknown[]) => run<R>(pool, text, params),
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const tx: Queryable = { query: (text, params) => run(client, text, params) };
        const result = await fn(tx);
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
