/**
 * An app over a private database with a settable clock and configuration: what the conformance
 * runner and the HTTP tests drive through Fastify's inject.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { SettableClock } from '../../src/clock.js';
import { defaultConfig, mergeConfig, type Config } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { addOptionalIndexes } from '../../src/db/optionalIndexes.js';
import { openPglite } from '../../src/db/pglite.js';
import type { PoolLogger } from '../../src/db/poolNotices.js';
import { openPostgres } from '../../src/db/postgres.js';
import {
  createReaderRole,
  createScratchDatabase,
  DEFAULT_ADMIN_URL,
  loadMirrorSchema,
  schemaKindOf,
  type SchemaKind,
} from '../db/scratch.js';
import { SetupLoader, type Setup } from '../../src/ledgerSetup/loader.js';
import { resetDatabase } from '../fixtures/reset.js';
import { createLogger } from '../../src/logger.js';

export type Backend = 'pglite' | 'postgres';

/** The settings the reference's own spec tests run with (differences from its defaults). */
export const REFERENCE_TEST_CONFIG = {
  query: { maxRepeatedQueryParameters: 8 },
  response: { enableDelegationAddress: true },
};

export interface HarnessOptions {
  backend: Backend;
  /** PostgreSQL server to create the private database on (postgres backend) */
  adminUrl?: string;
  /** settings applied on top of the defaults before every case */
  baseConfig?: Record<string, unknown>;
  logLevel?: string;
  /** pool settings (postgres backend) */
  pool?: {
    size?: number;
    statementTimeoutMs?: number;
    lockTimeoutMs?: number;
    connectionTimeoutMs?: number;
    preparedStatements?: boolean;
    /** the pool's own log lines (waits, refused connections, named statements turned off) */
    logger?: PoolLogger;
  };
  /** the app's database URL from the private database's (postgres backend), e.g. through a pooler; fixtures load directly */
  appUrl?: (url: string) => string;
  /**
   * The schema of the private database (postgres backend; default `LQS_TEST_SCHEMA`, else the
   * project's). On `mirror` the app reads as a role that can only SELECT and never migrates, as an
   * operator runs it against a mirror node database; fixtures are loaded by the database's owner.
   */
  schema?: SchemaKind;
  /** on the mirror schema: add the service's optional indexes (`lqs indexes`); default `LQS_TEST_OPTIONAL_INDEXES` */
  optionalIndexes?: boolean;
  /** wall-clock milliseconds for the response cache (off here unless `baseConfig` enables it) */
  cacheNow?: () => number;
}

export interface CapturedQuery {
  text: string;
  params: readonly unknown[];
}

/** Wraps a Db so that every query it runs can be recorded (plan tests replay them under EXPLAIN). */
function tapped(db: Db, sink: () => CapturedQuery[] | null): Db {
  return {
    ...db,
    backend: db.backend,
    query: (text, params = []) => {
      sink()?.push({ text, params });
      return db.query(text, params);
    },
    exec: (sql) => db.exec(sql),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: (text, params = []) => {
            sink()?.push({ text, params });
            return tx.query(text, params);
          },
        }),
      ),
    ping: () => db.ping(),
    refreshTypes: () => db.refreshTypes(),
    close: () => db.close(),
  };
}

export class Harness {
  private capture: CapturedQuery[] | null = null;

  private constructor(
    readonly app: FastifyInstance,
    /** the fixtures' database (its owner); the app's is `appDb` */
    readonly db: Db,
    readonly appDb: Db,
    readonly config: Config,
    readonly clock: SettableClock,
    private readonly base: Config,
    private readonly cleanup: () => Promise<void>,
  ) {}

  static async open(options: HarnessOptions): Promise<Harness> {
    const base = defaultConfig();
    // the cases reload data and change settings between requests: no response cache unless asked for
    base.cache.enabled = false;
    mergeConfig(base as never, options.baseConfig ?? {});
    const schema = options.schema ?? schemaKindOf(process.env.LQS_TEST_SCHEMA);
    let db: Db;
    let appDb: Db;
    let dropDatabase: () => Promise<void> = async () => {};
    if (options.backend === 'postgres') {
      const adminUrl = options.adminUrl ?? process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
      const scratch = await createScratchDatabase(adminUrl);
      const open = (url: string) =>
        openPostgres({
          url,
          poolSize: options.pool?.size ?? 4,
          statementTimeoutMs: options.pool?.statementTimeoutMs ?? 20_000,
          lockTimeoutMs: options.pool?.lockTimeoutMs,
          connectionTimeoutMs: options.pool?.connectionTimeoutMs ?? 5_000,
          preparedStatements: options.pool?.preparedStatements,
          logger: options.pool?.logger,
        });
      const appUrl = options.appUrl ?? ((url: string) => url);
      if (schema === 'mirror') {
        await loadMirrorSchema(scratch.url);
        if (options.optionalIndexes ?? process.env.LQS_TEST_OPTIONAL_INDEXES === 'true') {
          const owner = await open(scratch.url);
          await addOptionalIndexes(owner).finally(() => owner.close());
        }
        const reader = await createReaderRole(scratch, adminUrl);
        db = await open(scratch.url);
        appDb = await open(appUrl(reader.url));
        base.db.migrate = false;
        dropDatabase = async () => {
          await appDb.close();
          await scratch.drop();
          await reader.drop();
        };
      } else {
        db = await open(scratch.url);
        await migrate(db);
        const separate = options.appUrl ? await open(appUrl(scratch.url)) : null;
        appDb = separate ?? db;
        dropDatabase = async () => {
          await separate?.close();
          await scratch.drop();
        };
      }
    } else {
      if (schema === 'mirror') throw new Error('the mirror schema needs the postgres backend');
      db = appDb = await openPglite('');
      await migrate(db);
    }
    const config = structuredClone(base);
    const clock = new SettableClock();
    let harness: Harness | null = null;
    const app = await buildApp({
      config,
      db: tapped(appDb, () => harness?.capture ?? null),
      clock,
      logger: createLogger(options.logLevel ?? 'silent'),
      cacheNow: options.cacheNow,
    });
    await app.ready();
    harness = new Harness(app, db, appDb, config, clock, base, async () => {
      await app.close();
      await db.close();
      await dropDatabase();
    });
    return harness;
  }

  /** Runs `fn` and returns the queries the app sent to the database meanwhile. */
  async captureQueries(fn: () => Promise<unknown>): Promise<CapturedQuery[]> {
    this.capture = [];
    try {
      await fn();
      return this.capture;
    } finally {
      this.capture = null;
    }
  }

  /** Empties the tables, restores the base settings, applies `overrides` in order and loads `setup`. */
  async prepare(setup: Setup, ...overrides: unknown[]): Promise<void> {
    this.app.responseCache?.clear();
    this.app.systemFileVersions?.clear();
    await resetDatabase(this.db);
    this.resetConfig();
    mergeConfig(this.config as never, setup.config ?? {}, true);
    for (const o of overrides) mergeConfig(this.config as never, o, true);
    const { config: _config, features, ...data } = setup;
    await new SetupLoader(this.db, this.config).load(data);
    this.clock.set(fakeTimeNs((features as { fakeTime?: unknown } | undefined)?.fakeTime));
  }

  /** Restores the base settings in place (the app holds this very object). */
  resetConfig(): void {
    const fresh = structuredClone(this.base) as unknown as Record<string, unknown>;
    const target = this.config as unknown as Record<string, unknown>;
    for (const key of Object.keys(target)) target[key] = fresh[key];
  }

  async close(): Promise<void> {
    await this.cleanup();
  }
}

/**
 * The "now" of a spec with `features.fakeTime` (ISO date or epoch seconds). The reference's fake
 * clock ticks 20 ms before the request reads it, and the specs' expectations include that tick.
 */
export function fakeTimeNs(fakeTime: unknown): bigint | null {
  if (fakeTime === undefined || fakeTime === null) return null;
  const ms = typeof fakeTime === 'number' || typeof fakeTime === 'bigint' ? Number(fakeTime) * 1000 : Date.parse(String(fakeTime));
  if (Number.isNaN(ms)) throw new Error(`invalid fakeTime ${String(fakeTime)}`);
  return (BigInt(ms) + 20n) * 1_000_000n;
}
