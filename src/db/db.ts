/**
 * The one database interface the service uses, implemented over PGlite (embedded) and node-postgres.
 * Both return the same JavaScript values: int8 and int8[] as bigint, bytea as Uint8Array, json/jsonb
 * parsed with integers beyond 2^53 kept exact, int8range as its text.
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface Db extends Queryable {
  readonly backend: 'pglite' | 'postgres';
  /** Runs one or more statements without parameters (migrations, maintenance). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction on one connection. `readOnly`: `fn` only reads (with read
   * replicas it may run on one, and run again on the primary after a connection failure).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { readOnly?: boolean }): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** Reads the database's own types (domains, enums, their arrays) again; call after changing the schema. */
  refreshTypes(): Promise<void>;
  close(): Promise<void>;
  /**
   * The connection pool's state (PostgreSQL only): connections open, of them idle, queries waiting
   * for one, and how many requests had to wait for one since start-up.
   */
  poolStats?(): PoolStats;
  /**
   * With read replicas (src/db/replicas.ts): the Db of the reads that must see the newest data (on
   * the primary, falling back to a replica only while the primary cannot be reached).
   */
  primary?(): Db;
  /** With read replicas: each pool's state, lag and traffic, the primary first. */
  pools?(): PoolReport[];
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  waits?: number;
}

/** One connection pool of a Db over a primary and its read replicas. */
export interface PoolReport {
  /** `primary`, or `replica1`, `replica2`… in the order of `db.replicas` */
  name: string;
  /** up: serving reads; lagging: replay lag beyond db.maxReplicaLagMs; down: unreachable */
  state: 'up' | 'lagging' | 'down';
  /** replay lag at the last check in milliseconds (replicas; null before the first answer) */
  lagMs: number | null;
  /** statements this pool has answered */
  queries: number;
  total: number;
  idle: number;
  waiting: number;
}

/** Raised for failures of the database itself (unreachable, timeouts), as opposed to bad queries. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Connection-level failures and server-side cancellations: the database, not the request, is at fault. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  // no more connections (max_connections, out of memory): only while the pool has none to queue on
  '53300',
  '53400',
  // a lock held beyond lock_timeout (DDL, VACUUM FULL on the table): try again later
  '55P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|PGlite is closed|Cannot use a pool after calling end/i.test(
    message,
  );
}
