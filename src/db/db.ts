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
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** Reads the database's own types (domains, enums, their arrays) again; call after changing the schema. */
  refreshTypes(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's state (PostgreSQL only): connections open, of them idle, and queries waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number };
}

/** Raised for failures of the database itself (unreachable, timeouts), as opposed to bad queries. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}
