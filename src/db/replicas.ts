/**
 * Reads spread over PostgreSQL streaming replicas (`db.replicas`): a Db over the primary's Db and
 * one per replica. Statements that read (`query`) go round-robin to the replicas in rotation;
 * `exec`, `transaction` and `refreshTypes` go to the primary. A replica leaves the rotation when a
 * statement on it fails for the connection (it is then retried once on the primary: a read is safe
 * to repeat; so are transactions marked `readOnly`) or when its replay lag, checked every `checkIntervalMs`, exceeds `maxLagMs`; it returns
 * at the first check that finds it answering within the bound. With no replica in rotation, reads go
 * to the primary. `primary()` is the Db of the reads that must see the newest data.
 */
import { isDatabaseUnavailable, type Db, type PoolReport, type PoolStats, type Queryable, type Row } from './db.js';

export interface ReplicaOptions {
  /** replay lag beyond which a replica leaves the rotation */
  maxLagMs: number;
  /** how often each replica's lag (and the primary's reachability) is checked */
  checkIntervalMs: number;
  /** a replica's state changed (for the log) */
  onStateChange?: (report: PoolReport, previous: PoolReport['state'], err?: unknown) => void;
}

/**
 * The replay lag of a standby in milliseconds: 0 when it has replayed all it received (an idle
 * primary writes nothing, and the last replayed transaction's age would then grow without any
 * lag), else the age of the last replayed transaction; 0 on a server not in recovery (promoted).
 */
export const REPLAY_LAG_SQL = `select case
  when not pg_is_in_recovery() then 0
  when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
  else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 0)
end::float8 as lag_ms`;

/** A connection-level failure, after which a read is retried elsewhere (a statement timeout is not one: the query is at fault). */
const isConnectionFailure = (err: unknown) => isDatabaseUnavailable(err) && (err as { code?: unknown })?.code !== '57014';

class Pool {
  state: PoolReport['state'] = 'up';
  lagMs: number | null = null;
  queries = 0;
  checking = false;

  constructor(
    readonly name: string,
    readonly db: Db,
  ) {}

  report(): PoolReport {
    const stats = this.db.poolStats?.() ?? { total: 0, idle: 0, waiting: 0 };
    return { name: this.name, state: this.state, lagMs: this.lagMs, queries: this.queries, ...stats };
  }

  async query<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    const rows = await this.db.query<R>(text, params);
    this.queries++;
    return rows;
  }
}

export class ReplicatedDb implements Db {
  readonly backend = 'postgres' as const;
  private readonly main: Pool;
  private readonly replicas: Pool[];
  private next = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly preferPrimary: Db;

  /** `replicas` start out of the rotation until their first check; call `check()` once before serving. */
  constructor(
    primary: Db,
    replicas: Db[],
    private readonly options: ReplicaOptions,
  ) {
    this.main = new Pool('primary', primary);
    this.replicas = replicas.map((db, i) => {
      const pool = new Pool(`replica${i + 1}`, db);
      pool.state = 'down';
      return pool;
    });
    this.timer = setInterval(() => void this.check(), options.checkIntervalMs);
    this.timer.unref();
    this.preferPrimary = {
      backend: 'postgres',
      query: <R = Row>(text: string, params: readonly unknown[] = []) => this.readPrimaryFirst<R>(text, params),
      exec: (sql) => this.exec(sql),
      transaction: (fn, options) => this.transaction(fn, options),
      ping: () => this.ping(),
      refreshTypes: () => this.refreshTypes(),
      close: () => this.close(),
      poolStats: () => this.poolStats(),
    };
  }

  /** Checks the primary's reachability and every replica's lag once (each at most once at a time). */
  async check(): Promise<void> {
    await Promise.all([this.checkPrimary(), ...this.replicas.map((r) => this.checkReplica(r))]);
  }

  private async checkPrimary(): Promise<void> {
    const pool = this.main;
    if (pool.checking) return;
    pool.checking = true;
    try {
      await pool.db.ping();
      this.setState(pool, 'up');
    } catch (err) {
      this.setState(pool, 'down', err);
    } finally {
      pool.checking = false;
    }
  }

  private async checkReplica(pool: Pool): Promise<void> {
    if (pool.checking) return;
    pool.checking = true;
    try {
      const [row] = await pool.db.query<{ lag_ms: number }>(REPLAY_LAG_SQL);
      pool.lagMs = Math.round(Number(row?.lag_ms ?? 0));
      this.setState(pool, pool.lagMs > this.options.maxLagMs ? 'lagging' : 'up');
    } catch (err) {
      this.setState(pool, 'down', err);
    } finally {
      pool.checking = false;
    }
  }

  private setState(pool: Pool, state: PoolReport['state'], err?: unknown): void {
    // a check that ends after close() found the pools closed, not down
    if (this.closed) return;
    const previous = pool.state;
    pool.state = state;
    if (previous !== state) this.options.onStateChange?.(pool.report(), previous, err);
  }

  /** The next replica in rotation, round-robin; undefined when none is. */
  private pick(): Pool | undefined {
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const pool = this.replicas[(this.next + i) % n]!;
      if (pool.state === 'up') {
        this.next = (this.next + i + 1) % n;
        return pool;
      }
    }
    return undefined;
  }

  query<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    const replica = this.pick();
    if (!replica) return this.main.query<R>(text, params);
    return replica.query<R>(text, params).catch((err: unknown) => {
      if (!isConnectionFailure(err)) throw err;
      this.setState(replica, 'down', err);
      return this.main.query<R>(text, params);
    });
  }

  /** A read on the primary; while the primary cannot be reached, on a replica in rotation (stale rather than none). */
  private readPrimaryFirst<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    return this.main.query<R>(text, params).catch((err: unknown) => {
      if (!isConnectionFailure(err)) throw err;
      const replica = this.pick();
      if (!replica) throw err;
      return replica.query<R>(text, params);
    });
  }

  primary(): Db {
    return this.preferPrimary;
  }

  exec(sql: string): Promise<void> {
    return this.main.db.exec(sql);
  }

  /** On the primary, unless `readOnly`: then on a replica in rotation as a read is (retried once on the primary after a connection failure). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
    const replica = options?.readOnly ? this.pick() : undefined;
    if (!replica) return this.main.db.transaction(fn);
    return replica.db.transaction(fn).then(
      (result) => {
        replica.queries++;
        return result;
      },
      (err: unknown) => {
        if (!isConnectionFailure(err)) throw err;
        this.setState(replica, 'down', err);
        return this.main.db.transaction(fn);
      },
    );
  }

  /** Resolves when the primary answers or, while it does not, a replica in rotation does: reads can be served. */
  async ping(): Promise<void> {
    try {
      await this.main.db.ping();
    } catch (err) {
      const replica = this.replicas.find((r) => r.state === 'up');
      if (!replica) throw err;
      await replica.db.ping();
    }
  }

  /** Reads the types on the primary, then on each replica that answers (a replica that does not reads them when it next connects). */
  async refreshTypes(): Promise<void> {
    await this.main.db.refreshTypes();
    await Promise.all(this.replicas.map((r) => r.db.refreshTypes().catch(() => undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([this.main.db.close(), ...this.replicas.map((r) => r.db.close())]);
  }

  /** The connections of all pools together. */
  poolStats(): PoolStats {
    const sum = { total: 0, idle: 0, waiting: 0, waits: 0 };
    for (const pool of [this.main, ...this.replicas]) {
      const s = pool.db.poolStats?.();
      if (!s) continue;
      sum.total += s.total;
      sum.idle += s.idle;
      sum.waiting += s.waiting;
      sum.waits += s.waits ?? 0;
    }
    return sum;
  }

  pools(): PoolReport[] {
    return [this.main, ...this.replicas].map((p) => p.report());
  }
}
