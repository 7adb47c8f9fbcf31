import { createHash } from 'node:crypto';
import pg from 'pg';
import { DatabaseUnavailableError, type Db, type Row } from './db.js';
import { PreparedExecution, resultShape, type ResultShape } from './preparedExecution.js';
import { catalogParsers, reparse, TYPE_CATALOG_SQL, unknownFields, type CatalogRow, type TextParser } from './typeCatalog.js';
import { ownParsers } from './typeParsers.js';

/** pg-types' general array parser; its typings declare a function where the module exports `{ create }`. */
const generalArrayParser = pg.types.arrayParser as unknown as {
  create(text: string, element: (text: string) => unknown): { parse(): unknown[] };
};
const generalArray =
  (element: TextParser): TextParser =>
  (text) =>
    generalArrayParser.create(text, element).parse();

const parsers = ownParsers(generalArray);

const builtinParser = (oid: number): TextParser => parsers[oid] ?? (pg.types.getTypeParser(oid, 'text') as TextParser);

/**
 * The parsers of one database: the built-in types' and those of its own domains, enums and their
 * arrays (whose type ids are that database's), read from its catalog on the first connection.
 */
class DatabaseTypes {
  private own = new Map<number, TextParser>();
  /** types of the database read as they come (composite types and the like), not looked up again */
  private readonly opaque = new Set<number>();
  private loaded = false;

  getTypeParser = (oid: number, _format?: string): TextParser => this.own.get(oid) ?? builtinParser(oid);

  knows = (oid: number): boolean => this.own.has(oid) || this.opaque.has(oid);

  async ensureLoaded(client: pg.PoolClient): Promise<void> {
    if (!this.loaded) await this.load(client);
  }

  async load(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<CatalogRow>(TYPE_CATALOG_SQL);
    this.own = catalogParsers(rows, builtinParser, generalArray);
    this.loaded = true;
  }

  /** Reads the catalog again for types created since, and parses their values in `result` (left as text). */
  async catchUp(client: pg.PoolClient, result: pg.QueryResult): Promise<void> {
    const unknown = unknownFields(result.fields, this.knows);
    if (unknown.length === 0) return;
    await this.load(client);
    for (const field of unknown) if (!this.own.has(field.dataTypeID)) this.opaque.add(field.dataTypeID);
    reparse(result.rows as Record<string, unknown>[], unknown, (oid) => this.own.get(oid));
  }
}

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

/**
 * A client that handles its connection's `error` event for its whole life, from construction to
 * after its end: the pool listens only while a client is idle, and pool.query only once, so a
 * connection that reports two errors (a terminated backend sends its FATAL message, then the
 * socket ends) or fails between the pool's hand-over and its user's listener would otherwise
 * raise an unhandled 'error' event and end the process. The failure itself still reaches whoever
 * uses the client (its statement is rejected) or the pool (idle: pool 'error', then replaced).
 */
class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

/** First pause after a failed connection attempt; it doubles with each further failure up to RECONNECT_MAX_MS. */
export const RECONNECT_INITIAL_MS = 50;
/** Longest pause between connection attempts while the server refuses them: recovery comes at most this late. */
export const RECONNECT_MAX_MS = 500;

/**
 * Backoff of new connections while the server cannot be reached: after a failed attempt, requests
 * that find no idle connection fail at once (503) until the pause is over; then one of them at a
 * time probes, and the first new connection ends the backoff. Without it every request of an
 * outage opens (and fails) its own connection: thousands of attempts a second against a down
 * server or a role at its connection limit.
 */
class ReconnectBackoff {
  private failures = 0;
  private retryAt = 0;
  private probing = false;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Throws while backing off; otherwise returns whether this acquisition is the one probe allowed. */
  admit(): boolean {
    if (this.failures === 0) return false;
    if (this.probing || this.nowMs() < this.retryAt) {
      throw new DatabaseUnavailableError('database unreachable: waiting before the next connection attempt');
    }
    this.probing = true;
    return true;
  }

  probed(): void {
    this.probing = false;
  }

  connected(): void {
    this.failures = 0;
  }

  failed(): void {
    this.failures++;
    this.retryAt = this.nowMs() + Math.min(RECONNECT_MAX_MS, RECONNECT_INITIAL_MS * 2 ** Math.min(this.failures - 1, 16));
  }
}

/** pg-pool's error when a request waited connectionTimeoutMillis for a busy pool: no attempt failed. */
const isPoolWaitTimeout = (err: unknown) => err instanceof Error && /timeout exceeded when trying to connect/.test(err.message);

export async function openPostgres(options: PostgresOptions): Promise<Db> {
  const types = new DatabaseTypes();
  const pool = new pg.Pool({
    Client: GuardedClient as unknown as new () => pg.ClientBase,
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
  const parserOf = (oid: number) => types.getTypeParser(oid);

  /** A named statement runs described only on its first execution per connection (see PreparedExecution). */
  const runOn = async <R>(client: pg.PoolClient, text: string, params: readonly unknown[]): Promise<R[]> => {
    const name = nameOf(text);
    if (name === undefined) {
      const result = await client.query({ text, values: params as unknown[] });
      await types.catchUp(client, result);
      return result.rows as R[];
    }
    const shape = shapes.get(name);
    let prepared = preparedOn.get(client);
    if (shape && prepared?.has(name)) {
      const execution = new PreparedExecution<R>(name, params, shape);
      client.query(execution as unknown as pg.Submittable);
      return execution.rows;
    }
    const result = await client.query({ name, text, values: params as unknown[] });
    await types.catchUp(client, result);
    if (!shape) shapes.set(name, resultShape(result.fields, parserOf));
    if (!prepared) {
      prepared = new Set();
      preparedOn.set(client, prepared);
    }
    prepared.add(name);
    return result.rows as R[];
  };
  const backoff = new ReconnectBackoff();
  pool.on('connect', () => backoff.connected());
  /** A client from the pool; while new connections fail, only as the backoff lets it. */
  const acquire = async (): Promise<pg.PoolClient> => {
    const probe = pool.idleCount === 0 && backoff.admit();
    try {
      return await pool.connect();
    } catch (err) {
      // a failure to connect (refused, timed out, at the connection limit), not a wait for a busy pool
      if (!isPoolWaitTimeout(err)) backoff.failed();
      throw err;
    } finally {
      if (probe) backoff.probed();
    }
  };
  /**
   * Checks a client out for `fn`: every statement of the service, the readiness ping and exec
   * included, goes this way. As pool.query does, a client whose work failed is not reused (its
   * connection errors are handled by GuardedClient for its whole life).
   */
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await acquire();
    try {
      await types.ensureLoaded(client);
      const result = await fn(client);
      client.release();
      return result;
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  };

  return {
    backend: 'postgres',
    query: <R = Row>(text: string, params: readonly unknown[] = []) => withClient((client) => runOn<R>(client, text, params)),
    async exec(sql) {
      await withClient((client) => client.query(sql));
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
      await withClient((client) => client.query('select 1'));
    },
    refreshTypes: () => withClient((client) => types.load(client)),
    async close() {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
