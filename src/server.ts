/** `serve`: opens the database, loads the demo ledger into an empty embedded one, and listens. */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildAdminApp } from './admin/app.js';
import { buildApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import type { Db } from './db/db.js';
import { openDatabase } from './db/open.js';
import { loadDemoLedger, demoExampleUrls, demoLedgerPresent } from './demo/ledger.js';
import { createLogger } from './logger.js';
import { ServiceMetrics } from './http/metrics.js';

async function isEmpty(db: Db): Promise<boolean> {
  const rows = await db.query('select (select count(*) from (select 1 from entity limit 1) e) + (select count(*) from (select 1 from record_file limit 1) r) as n');
  return rows[0]?.n === 0n;
}

function wantsDemo(config: Config): boolean {
  if (config.demo.load === 'auto') return !config.db.url && config.db.migrate;
  return config.demo.load === 'true';
}

export async function serve(options: { migrate: boolean }): Promise<void> {
  const config = loadConfig();
  if (!options.migrate) config.db.migrate = false;
  const logger = createLogger(config.log.level, undefined, { pretty: config.log.pretty });
  let metrics: ServiceMetrics | undefined;
  const db = await openDatabase(config, (err) => {
    logger.warn({ err }, 'database connection error');
    metrics?.dbError('idle_connection');
  });
  metrics = new ServiceMetrics(db);
  logger.info({ backend: db.backend, dataDir: db.backend === 'pglite' ? config.db.dataDir || '(memory)' : undefined }, 'database ready');

  let demo = false;
  if (wantsDemo(config) && (await isEmpty(db))) {
    await loadDemoLedger(db, config);
    demo = true;
    logger.info('loaded the demo ledger into the empty database');
  }

  const listeners = await startListeners({ config, db, clock: systemClock, logger, metrics }).catch(async (err: unknown) => {
    await db.close();
    throw err;
  });

  const base = listeners.publicUrl;
  const examples = demo || (await demoLedgerPresent(db)) ? demoExampleUrls() : [];
  const admin = listeners.adminUrl
    ? `  Admin listener: ${listeners.adminUrl} (POST ${listeners.adminUrl}/change-log-level, HTTP Basic auth)`
    : '  Admin listener: disabled (admin.enabled)';
  if (!listeners.adminUrl) logger.info('admin listener disabled (admin.enabled is false)');
  process.stdout.write(
    [`Ledger Query Service listening on ${base} (${db.backend})`, `  API description: ${base}/api/v1/docs`, admin, ...examples.map((u) => `  ${base}${u}`), ''].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await listeners.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

export interface Listeners {
  publicUrl: string;
  /** null when admin.enabled is false */
  adminUrl: string | null;
  /** stops both listeners and waits for running handlers (not the database) */
  close(): Promise<void>;
}

/** The URL a listening app answers on (a wildcard address shown as localhost). */
function listeningUrl(app: FastifyInstance): string {
  const { address, port, family } = app.server.address() as AddressInfo;
  const host = address === '0.0.0.0' || address === '::' ? 'localhost' : family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/** Builds the public app and the admin app over one root logger and listens on both ports. */
export async function startListeners(options: { config: Config; db: Db; clock: Clock; logger: Logger; metrics?: ServiceMetrics }): Promise<Listeners> {
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
  return { publicUrl: listeningUrl(app), adminUrl: admin ? listeningUrl(admin) : null, close };
}
