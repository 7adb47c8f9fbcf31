/**
 * `serve`: opens the database, loads the demo ledger into an empty embedded one, and listens. With
 * `server.workers` other than 1 this process becomes the cluster primary (src/cluster/primary.ts)
 * and each worker runs this same function to serve the public listener.
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { buildAdminApp } from './admin/app.js';
import { buildApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { configWith, loadConfig, type Config } from './config.js';
import type { Db } from './db/db.js';
import { openDatabase } from './db/open.js';
import { loadDemoLedger, demoExampleUrls, isDemoLedger } from './demo/ledger.js';
import { grantAdvice, missingSchema, NO_SELECT } from './db/schemaRequirements.js';
import { findMissingOptionalIndexes, type MissingIndex } from './db/optionalIndexes.js';
import { OutageLog } from './http/outageLog.js';
import { checkPorts } from './portCheck.js';
import { listeningUrl, startupBanner } from './startupBanner.js';
import { UserError } from './userError.js';
import { createLogger } from './logger.js';
import { ServiceMetrics } from './http/metrics.js';
import { servePrimary } from './cluster/primary.js';
import { announceReady, followLogLevel, WorkerMetrics } from './cluster/worker.js';
import type { BackgroundIngestion } from './ingest/background.js';

async function isEmpty(db: Db): Promise<boolean> {
  const rows = await db.query(
    'select (select count(*) from (select 1 from entity limit 1) e) + (select count(*) from (select 1 from record_file limit 1) r) as n',
  );
  return rows[0]?.n === 0n;
}

function wantsDemo(config: Config): boolean {
  // a database being filled from stream files holds only what they give
  if (config.ingest.source) return false;
  if (config.demo.load === 'auto') return !config.db.url && config.db.migrate;
  return config.demo.load === 'true';
}

/** How long a signal waits for the start-up step under way (opening, migrating, listening) before closing. */
const STEP_GRACE_MS = 10_000;

/** The processes `server.workers` asks for (0: one per core). */
export function workerCount(config: Config): number {
  return config.server.workers === 0 ? availableParallelism() : config.server.workers;
}

/** Serves with `loaded` (read by the caller; else read here) and `migrate` (false: `--no-migrate`). */
export async function serve(options: { migrate: boolean; loaded?: Config }): Promise<void> {
  // a worker: the primary runs the admin listener and prints the banner
  const worker = cluster.isWorker;
  // the primary has warned about the configuration once; its workers load the same
  const loaded = options.loaded ?? loadConfig(process.env, process.env.LQS_CONFIG_FILE, worker ? () => {} : undefined);
  const config = configWith(
    { db: { migrate: loaded.db.migrate && options.migrate }, admin: { enabled: loaded.admin.enabled && !worker } },
    loaded,
  );
  if (config.ingest.source && workerCount(config) > 1) {
    throw new UserError(
      'ingest.source ingests in the serving process: it needs server.workers 1 (or run `lqs ingest` beside serve on PostgreSQL)',
    );
  }
  // mainnet's errata folder is read and checked before the database is opened, as `lqs ingest` does
  const errata = config.ingest.source ? (await import('./ingest/setup.js')).resolveErrata(config.ingest) : null;
  // a worker's listener is the primary's, which has checked the ports
  if (!worker) await checkPorts(config);
  if (cluster.isPrimary && workerCount(config) > 1) return servePrimary(config, workerCount(config));

  // Signal handlers come first, so that SIGTERM or SIGINT at any moment of start-up ends the process
  // with 0 after closing what is open: the step under way finishes (a migration is not cut in two),
  // then the listeners and the database close, in whichever state start-up reached.
  let db: Db | undefined;
  let listeners: Listeners | undefined;
  let outages: OutageLog | undefined;
  let ingestion: BackgroundIngestion | undefined;
  let step: Promise<unknown> = Promise.resolve();
  let stopping = false;
  const during = <T>(work: Promise<T>): Promise<T> => {
    step = work.catch(() => undefined);
    return work;
  };
  let logger: Logger | undefined;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger?.info({ signal }, 'shutting down');
    const grace = new Promise<void>((resolve) => setTimeout(resolve, STEP_GRACE_MS).unref());
    await Promise.race([step, grace]);
    try {
      await ingestion?.stop();
      await listeners?.close();
      await db?.close();
      outages?.close();
    } catch (err) {
      logger?.warn({ err }, 'error while shutting down');
    }
    process.exit(0);
  };
  const onSigterm = () => void stop('SIGTERM');
  const onSigint = () => void stop('SIGINT');
  process.once('SIGTERM', onSigterm);
  process.once('SIGINT', onSigint);

  try {
    logger = createLogger(config.log.level, undefined, { pretty: config.log.pretty });
    logger.info('starting');
    outages = new OutageLog(logger);
    const faults = outages;
    let metrics: ServiceMetrics | undefined;
    db = await during(
      openDatabase(
        config,
        (err) => {
          faults.record('connection', err);
          metrics?.dbError('idle_connection');
        },
        (pool, previous, err) => {
          const fields = { pool: pool.name, state: pool.state, previous, lagMs: pool.lagMs, err };
          if (pool.state === 'up') logger?.info(fields, 'database pool back in rotation');
          else logger?.warn(fields, 'database pool out of rotation');
        },
        logger,
        () => faults.available(),
      ),
    );
    if (stopping) return;
    await during(checkSchema(db));
    if (stopping) return;
    const missingIndexes = await during(findMissingOptionalIndexes(db));
    // with workers, the first one speaks for all: they read the same database
    if (missingIndexes.length > 0 && (!worker || cluster.worker?.id === 1))
      logger.warn({ missingOptionalIndexes: missingIndexes.map((i) => i.name) }, missingIndexesWarning(missingIndexes));
    if (stopping) return;
    metrics = worker ? new WorkerMetrics(db) : new ServiceMetrics(db);
    if (worker) followLogLevel(logger);
    logger.info(
      {
        backend: db.backend,
        dataDir: db.backend === 'pglite' ? config.db.dataDir || '(memory)' : undefined,
        pools: db.pools?.().map((p) => `${p.name}:${p.state}`),
      },
      'database ready',
    );

    let demo = false;
    if (wantsDemo(config) && (await during(isEmpty(db)))) {
      if (stopping) return;
      await during(loadDemoLedger(db, config));
      demo = true;
      logger.info('loaded the demo ledger into the empty database');
    }
    if (stopping) return;

    // a problem of the ingestion settings stops start-up before anything listens
    if (config.ingest.source) {
      const { startIngestion } = await import('./ingest/background.js');
      const { IngestMetrics } = await import('./ingest/metrics.js');
      ingestion = await during(startIngestion(db, config, logger, new IngestMetrics(metrics.registry), errata));
    }
    if (stopping) return;

    listeners = await during(startListeners({ config, db, clock: systemClock, logger, outages, metrics, missingIndexes }));
    if (stopping) return;

    const base = listeners.publicUrl;
    const examples = demo || (await during(isDemoLedger(db, config))) ? demoExampleUrls() : [];
    if (stopping) return;
    if (worker) return announceReady({ url: base, backend: db.backend, examples });
    if (!listeners.adminUrl) logger.info('admin listener disabled (admin.enabled is false)');
    process.stdout.write(startupBanner({ base, backend: db.backend, adminUrl: listeners.adminUrl, examples, workers: null }));
  } catch (err) {
    // a step cut short by the shutdown under way is not a failed start-up
    if (stopping) return;
    // whatever step failed, what is open is closed: an open database (its data directory's lock
    // refresh, its pool) would keep the process alive after the failure is reported
    await ingestion?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    process.off('SIGTERM', onSigterm).off('SIGINT', onSigint);
    throw err;
  }
}

/** The start-up warning: every optional index missing, with the pages it slows, in one line. */
export function missingIndexesWarning(missing: readonly MissingIndex[]): string {
  const list = missing.map((i) => `${i.name} (${i.slows})`).join('; ');
  return `The database lacks ${missing.length} optional index${missing.length === 1 ? '' : 'es'} of the service; the answers are the same, these pages are slower: ${list}. \`lqs indexes\` (node dist/src/main.js indexes, as the database's owner) adds them while the database is in use`;
}

/** Stops with one list of every table and column the service reads that the database lacks. */
async function checkSchema(db: Db): Promise<void> {
  const missing = await missingSchema(db);
  const unreadable = missing.filter((m) => m.endsWith(NO_SELECT));
  const absent = missing.filter((m) => !m.endsWith(NO_SELECT));
  let grant = '';
  if (unreadable.length > 0) {
    const [{ role }] = (await db.query<{ role: string }>('select current_user as role')) as [{ role: string }];
    grant = grantAdvice(
      role,
      unreadable.map((m) => m.slice('table '.length, -NO_SELECT.length)),
    );
  }
  if (absent.length > 0) {
    const lacks = `The database lacks what the service reads (a mirror node database of another version?): ${absent.join('; ')}`;
    throw new UserError(grant ? `${lacks}; and ${grant}` : lacks);
  }
  if (grant) throw new UserError(grant);
}

export interface Listeners {
  publicUrl: string;
  /** null when admin.enabled is false */
  adminUrl: string | null;
  /** stops both listeners and waits for running handlers (not the database) */
  close(): Promise<void>;
}

/** Builds the public app and the admin app over one root logger and listens on both ports. */
export async function startListeners(options: {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  outages?: OutageLog;
  metrics?: ServiceMetrics;
  missingIndexes?: readonly MissingIndex[];
}): Promise<Listeners> {
  const { config } = options;
  const admin = config.admin.enabled ? await buildAdminApp({ config, logger: options.logger }) : null;
  const app = await buildApp(options);
  const close = async () => {
    await Promise.all([app.close(), admin?.close()]);
    await app.handlersIdle();
  };
  try {
    await app.listen({ port: config.port, host: config.host });
    if (admin) await admin.listen({ port: config.admin.port, host: config.admin.host });
  } catch (err) {
    await close();
    throw err;
  }
  return { publicUrl: listeningUrl(app.server), adminUrl: admin ? listeningUrl(admin.server) : null, close };
}
