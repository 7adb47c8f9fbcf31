import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Db, Row } from './db.js';
import { PreparedExecution, resultShape, type ResultShape } from './preparedExecution.js';
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
  const shapes = new Map<string, ResultShape>();
  const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();
  const parserOf = (oid: number) => types.getTypeParser(oid, 'text') as (text: string) => unknown;

  /** A named statement runs described only on its first execution per connection (see PreparedExecution). */
  const runOn = async <R>(client: pg.PoolClient, text: string, params: readonly unknown[]): Promise<R[]> => {
    const name = nameOf(text);
    if (name === undefined) return (await client.query({ text, values: params as unknown[] })).rows as R[];
    const shape = shapes.get(name);
    let prepared = preparedOn.get(client);
    if (shape && prepared?.has(name)) {
      const execution = new PreparedExecution<R>(name, params, shape);
      client.query(execution as unknown as pg.Submittable);
      return execution.rows;
    }
    const result = await client.query({ name, text, values: params as unknown[] });
    if (!shape) shapes.set(name, resultShape(result.fields, parserOf));
    if (!prepared) preparedOn.set(client, (prepared = new Set()));
    prepared.add(name);
    return result.rows as R[];
  };
  /**
   * Checks a client out for `fn`. As pool.query does, a client whose work failed is not reused, and
   * its connection's error event is handled while it is out (the failed statement reports it).
   */
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    const ignore = () => undefined;
    client.on('error', ignore);
    try {
      const result = await fn(client);
      client.release();
      return result;
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    } finally {
      client.removeListener('error', ignore);
    }
  };

  return {
    backend: 'postgres',
    query: <R = Row>(text: string, params: readonly unknown[] = []) => withClient((client) => runOn<R>(client, text, params)),
    async exec(sql) {
      await pool.query(sql);
    },
    transaction: (fn) =>
      withClient(async (client) => {
        await client.query('begin');
        try {
          const result = await fn({ query: (text, params = []) => runOn(client, text, params) });
          await client.query('commit');
          return result;
        } catch (err) {
          await client.query('rollback').catch(() => undefined);
          throw err;
        }
      }),
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
