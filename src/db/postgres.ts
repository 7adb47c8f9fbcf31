import { createHash } from 'node:crypto';
import pg from 'pg';
import { CheckoutGate } from './checkoutGate.js';
import {
  isCapacityFailure,
  isPoolWaitTimeout,
  isPreparedStatementFailure,
  SetupTimeoutError,
  shortReason,
  within,
} from './connectionFailures.js';
import { DatabaseUnavailableError, type Db, type Row } from './db.js';
import { RateLimitedWarning, type PoolLogger } from './poolNotices.js';
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
  /** how long a statement waits for a lock before it fails (0: up to the statement timeout) */
  lockTimeoutMs?: number;
  connectionTimeoutMs: number;
  /**
   * Named statements, prepared once per connection (default). false: every statement unnamed and the
   * timeouts set in each statement's transaction, for a pooler in transaction mode, which hands each
   * transaction whichever server connection is free.
   */
  preparedStatements?: boolean;
  /** TLS to the server (src/db/tls.ts); undefined: as the URL says */
  ssl?: import('node:tls').ConnectionOptions;
  onError?: (err: Error) => void;
  /** a new connection was made (the database answers: ends an outage's log) */
  onConnect?: () => void;
  /** the pool's own lines: waits for a connection, the server refusing more, named statements turned off */
  logger?: PoolLogger;
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

/** `set` (per session) or `set local` (per transaction) statements of the configured timeouts. */
function timeoutSettings(options: PostgresOptions, scope: 'set' | 'set local'): string {
  const settings: string[] = [];
  if (options.statementTimeoutMs > 0) settings.push(`${scope} statement_timeout = ${Math.floor(options.statementTimeoutMs)}`);
  if ((options.lockTimeoutMs ?? 0) > 0) settings.push(`${scope} lock_timeout = ${Math.floor(options.lockTimeoutMs!)}`);
  return settings.join('; ');
}

export async function openPostgres(options: PostgresOptions): Promise<Db> {
  const types = new DatabaseTypes();
  // No timeouts as startup parameters: a pooler (PgBouncer by default) refuses unknown ones.
  const clientConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    application_name: 'ledger-query-service',
    types,
    ...(options.ssl ? { ssl: options.ssl } : {}),
  };
  const pool = new pg.Pool({
    ...clientConfig,
    Client: GuardedClient as unknown as new () => pg.ClientBase,
    max: options.poolSize,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => options.onError?.(err));
  const logger = options.logger;

  /**
   * Whether the service owns each connection's session (directly on PostgreSQL, or a pooler in
   * session mode): then statements are named and the timeouts set once per connection. Otherwise
   * a session SET would reach other clients of the pooler and miss this one's next transaction,
   * so the timeouts go with each statement's transaction (SET LOCAL) and statements run unnamed.
   */
  let ownSession = options.preparedStatements !== false;
  const sessionSetup = timeoutSettings(options, 'set') || 'select 1';
  const localSetup = timeoutSettings(options, 'set local');
  const ready = new WeakSet<pg.PoolClient>();

  const nameOf = statementNamer();
  const shapes = new Map<string, ResultShape>();
  const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();
  const parserOf = (oid: number) => types.getTypeParser(oid);

  /** A named statement runs described only on its first execution per connection (see PreparedExecution). */
  const runOn = async <R>(client: pg.PoolClient, text: string, params: readonly unknown[]): Promise<R[]> => {
    const name = ownSession ? nameOf(text) : undefined;
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

  const prepareFailed = new RateLimitedWarning(
    logger,
    'named statements fail on this database connection (a pooler in transaction mode in between?): statements run unnamed from now on; set db.preparedStatements to false',
  );
  /** Named statements failed as they do behind a pooler in transaction mode: stop naming them, and stop relying on the session. */
  const leaveSession = (err: unknown) => {
    prepareFailed.say({ reason: shortReason(err) });
    ownSession = false;
  };

  const waited = new RateLimitedWarning(logger, 'database pool: requests wait for a connection');
  const gate = new CheckoutGate(options.poolSize, options.connectionTimeoutMs, (reason) =>
    waited.say({ reason, poolSize: options.poolSize, open: pool.totalCount, waiting: gate.waiting + 1 }),
  );
  const refused = new RateLimitedWarning(
    logger,
    'database refuses more connections: requests queue on the connections the pool has (max_connections, or a pooler with fewer server connections than db.poolSize)',
  );

  const backoff = new ReconnectBackoff();
  pool.on('connect', () => {
    backoff.connected();
    options.onConnect?.();
  });
  /** An idle client, or a new one whose session is set up; while new connections fail, only as the backoff lets it. */
  const connect = async (): Promise<pg.PoolClient> => {
    const probe = pool.idleCount === 0 && backoff.admit();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      // a failure to connect (refused, timed out, at the connection limit), not a wait for a busy pool
      if (!isPoolWaitTimeout(err) && !(isCapacityFailure(err) && pool.totalCount > 0)) backoff.failed();
      throw err;
    } finally {
      if (probe) backoff.probed();
    }
    if (ready.has(client)) return client;
    try {
      // a pooler in session mode with no free server connection accepts the connection and holds its first statement
      const setup = ownSession ? sessionSetup : 'select 1';
      await within(client.query(setup), options.connectionTimeoutMs, () => new SetupTimeoutError(options.connectionTimeoutMs));
      await types.ensureLoaded(client);
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    ready.add(client);
    return client;
  };
  /**
   * A client for one request, admitted by the gate. When the server takes no more connections but
   * the pool has some, the request queues on those rather than failing.
   */
  const acquire = async (): Promise<pg.PoolClient> => {
    await gate.enter();
    for (let attempt = 1; ; attempt++) {
      try {
        return await connect();
      } catch (err) {
        const open = pool.totalCount;
        if (!isCapacityFailure(err) || open === 0 || attempt > 3) {
          gate.leave();
          throw err;
        }
        gate.limitTo(open);
        refused.say({ open, poolSize: options.poolSize, reason: shortReason(err) });
        gate.leave();
        await gate.enter();
      }
    }
  };
  /**
   * Checks a client out for `fn`: every statement of the service and exec go this way. As
   * pool.query does, a client whose work failed is not reused (its connection errors are handled
   * by GuardedClient for its whole life).
   */
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await acquire();
    try {
      const result = await fn(client);
      client.release();
      return result;
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    } finally {
      gate.leave();
    }
  };
  /** `fn` in a transaction on `client`, with the timeouts set for it when the session is not the service's. */
  const inTransaction = async <T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> => {
    await client.query(!ownSession && localSetup ? `begin; ${localSetup}` : 'begin');
    try {
      const result = await fn();
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    }
  };
  /** One statement; behind a pooler in transaction mode inside a transaction of its own that carries the timeouts. */
  const statement = <R>(client: pg.PoolClient, text: string, params: readonly unknown[]) =>
    ownSession || !localSetup ? runOn<R>(client, text, params) : inTransaction(client, () => runOn<R>(client, text, params));
  /** Runs `work` again, once, after named statements failed (then turned off): it only read. */
  const retryingUnnamed = async <T>(work: () => Promise<T>, retry: boolean): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (!isPreparedStatementFailure(err)) throw err;
      leaveSession(err);
      if (!retry) throw err;
      return work();
    }
  };

  const readiness = new ReadinessConnection(clientConfig, options.connectionTimeoutMs);

  return {
    backend: 'postgres',
    query: <R = Row>(text: string, params: readonly unknown[] = []) =>
      retryingUnnamed(() => withClient((client) => statement<R>(client, text, params)), true),
    async exec(sql) {
      await withClient((client) => client.query(sql));
    },
    transaction: (fn, txOptions) =>
      retryingUnnamed(
        () => withClient((client) => inTransaction(client, () => fn({ query: (text, params = []) => runOn(client, text, params) }))),
        txOptions?.readOnly === true,
      ),
    async ping() {
      try {
        await readiness.ping();
      } catch (err) {
        // the server refuses one more connection but answers the pool's: ready as far as requests are concerned
        if (!isCapacityFailure(err) || pool.totalCount === 0) throw err;
        await withClient((client) => client.query('select 1'));
      }
    },
    refreshTypes: () => withClient((client) => types.load(client)),
    async close() {
      await readiness.close();
      await pool.end();
    },
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount + gate.waiting,
      waits: gate.waits,
    }),
  };
}

/**
 * The readiness check's own connection, outside the pool: readiness answers for the database, not
 * for whether a request finds a free pooled connection (a locked table can hold them all).
 * Concurrent checks share the one in flight: a connection runs one statement at a time.
 */
class ReadinessConnection {
  private client: pg.Client | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly timeoutMs: number,
  ) {}

  ping(): Promise<void> {
    this.inFlight ??= this.check().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async check(): Promise<void> {
    try {
      if (!this.client) {
        const client = new GuardedClient({ ...this.config, application_name: 'ledger-query-service readiness' });
        this.client = client;
        client.on('end', () => {
          if (this.client === client) this.client = null;
        });
        await client.connect();
      }
      const client = this.client;
      await within(client.query('select 1'), this.timeoutMs, () => new Error(`the readiness check got no answer in ${this.timeoutMs} ms`));
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
