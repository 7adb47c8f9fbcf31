/**
 * Apps over a private database with a settable clock: what the conformance runner and the HTTP
 * tests drive through Fastify's inject. A configuration is fixed once an app is built, so the
 * harness builds one app per distinct configuration a case asks for and keeps it for the next.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { SettableClock } from '../../src/clock.js';
import { type Config, configWith } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { addOptionalIndexes, findMissingOptionalIndexes } from '../../src/db/optionalIndexes.js';
import { openPglite } from './pglite.js';
import type { PoolLogger } from '../../src/db/poolNotices.js';
import { openPostgres } from '../../src/db/postgres.js';
import {
  createNamedDatabase,
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

/**
 * A case's settings as the reference's spec tests apply them. The reference reads
 * `response.limit.default` once at start-up, before a case's settings apply, and its specs expect
 * that: a case that sets it is answered with the default of the reference's test configuration.
 */
function asReferenceApplies(settings: unknown): unknown {
  const response = (settings as { response?: { limit?: Record<string, unknown> } } | null)?.response;
  if (response?.limit === undefined || !('default' in response.limit)) return settings;
  const { default: _readAtStartUp, ...limit } = response.limit;
  return { ...(settings as object), response: { ...response, limit } };
}

/** A key for a configuration's content (bigints included). */
const contentKey = (config: Config): string => JSON.stringify(config, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));

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
  /** the name prefix of the private database (postgres backend; default `lqs_scratch`) */
  databasePrefix?: string;
  /**
   * Instead: the exact name of a new database that `close` leaves in place, for a later command
   * to read (postgres backend, the project's schema; one of that name already there is refused).
   */
  keptDatabase?: string;
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
  private readonly apps = new Map<string, FastifyInstance>();
  private current: { app: FastifyInstance; config: Config };

  private constructor(
    /** the fixtures' database (its owner); the app's is `appDb` */
    readonly db: Db,
    readonly appDb: Db,
    /** the private database's URL (postgres backend) */
    readonly url: string | null,
    readonly clock: SettableClock,
    private readonly base: Config,
    private readonly build: (config: Config) => Promise<FastifyInstance>,
    private readonly cleanup: (keep: boolean) => Promise<void>,
  ) {
    this.current = { app: undefined as never, config: base };
  }

  static async open(options: HarnessOptions): Promise<Harness> {
    const schema = options.schema ?? schemaKindOf(process.env.LQS_TEST_SCHEMA);
    let db: Db;
    let appDb: Db;
    let migrates = true;
    /** `keep`: leave a kept database in place (`close`), or drop it all the same (`discard`) */
    let dropDatabase: (keep: boolean) => Promise<void> = async () => {};
    let url: string | null = null;
    if (options.backend === 'postgres') {
      const adminUrl = options.adminUrl ?? process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
      if (options.keptDatabase !== undefined && schema === 'mirror') throw new Error('a kept database has the project schema');
      const scratch =
        options.keptDatabase === undefined
          ? await createScratchDatabase(adminUrl, options.databasePrefix)
          : await createNamedDatabase(adminUrl, options.keptDatabase);
      url = scratch.url;
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
        migrates = false;
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
        dropDatabase = async (keep) => {
          await separate?.close();
          if (!(keep && options.keptDatabase !== undefined)) await scratch.drop();
        };
      }
    } else {
      if (schema === 'mirror') throw new Error('the mirror schema needs the postgres backend');
      if (options.keptDatabase !== undefined) throw new Error('a kept database needs the postgres backend');
      db = appDb = await openPglite('');
      await migrate(db);
    }
    // the cases reload data between requests: no response cache unless asked for
    const base = configWith(options.baseConfig ?? {}, configWith({ cache: { enabled: false }, db: { migrate: migrates } }));
    const clock = new SettableClock();
    const logger = createLogger(options.logLevel ?? 'silent');
    let harness: Harness | null = null;
    const tappedDb = tapped(appDb, () => harness?.capture ?? null);
    // as serve finds them at start-up: on the mirror schema without `lqs indexes`, the plans that do without them
    const missingIndexes = await findMissingOptionalIndexes(appDb);
    const build = async (config: Config) => {
      const app = await buildApp({ config, db: tappedDb, clock, logger, cacheNow: options.cacheNow, missingIndexes });
      await app.ready();
      return app;
    };
    harness = new Harness(db, appDb, url, clock, base, build, async (keep) => {
      for (const app of harness!.apps.values()) await app.close();
      await db.close();
      await dropDatabase(keep);
    });
    await harness.use(base);
    return harness;
  }

  /** The app of the configuration in use (the base one, or the last case's). */
  get app(): FastifyInstance {
    return this.current.app;
  }

  get config(): Config {
    return this.current.config;
  }

  /** Serves from now on with `config`, building its app the first time it is asked for. */
  async use(config: Config): Promise<FastifyInstance> {
    const key = contentKey(config);
    let app = this.apps.get(key);
    if (!app) {
      app = await this.build(config);
      this.apps.set(key, app);
    }
    this.current = { app, config };
    return app;
  }

  /** Serves from now on with the base settings and `overrides` (typed, checked) on top. */
  async configure(overrides: Parameters<typeof configWith>[0]): Promise<FastifyInstance> {
    return this.use(configWith(overrides, this.base));
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

  /**
   * Empties the tables, serves with the base settings and `setup.config` and `overrides` on top (in
   * order; keys this service does not model are skipped, as the reference's cases name some) and
   * loads `setup`.
   */
  async prepare(setup: Setup, ...overrides: unknown[]): Promise<void> {
    for (const app of this.apps.values()) {
      app.responseCache?.clear();
      app.systemFileVersions?.clear();
    }
    await resetDatabase(this.db);
    let config = this.base;
    for (const settings of [setup.config ?? {}, ...overrides]) config = configWith(asReferenceApplies(settings) as never, config, true);
    await this.use(config);
    const { config: _config, features, ...data } = setup;
    await new SetupLoader(this.db, this.config).load(data);
    this.clock.set(fakeTimeNs((features as { fakeTime?: unknown } | undefined)?.fakeTime));
  }

  /** Serves with the base settings again. */
  async resetConfig(): Promise<void> {
    await this.use(this.base);
  }

  /** Closes the apps and the database; drops a private database, but leaves a kept one (`keptDatabase`). */
  async close(): Promise<void> {
    await this.cleanup(true);
  }

  /** Closes like `close`, and drops a kept database too (a run that failed before it was worth keeping). */
  async discard(): Promise<void> {
    await this.cleanup(false);
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
