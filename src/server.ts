/** `serve`: opens the database, loads the demo ledger into an empty embedded one, and listens. */
import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import type { Db } from './db/db.js';
import { openDatabase } from './db/open.js';
import { loadDemoLedger, demoExampleUrls } from './demo/ledger.js';
import { createLogger } from './logger.js';

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
  const logger = createLogger(config.log.level);
  const db = await openDatabase(config, (err) => logger.warn({ err }, 'database connection error'));
  logger.info({ backend: db.backend, dataDir: db.backend === 'pglite' ? config.db.dataDir || '(memory)' : undefined }, 'database ready');

  let demo = false;
  if (wantsDemo(config) && (await isEmpty(db))) {
    await loadDemoLedger(db, config);
    demo = true;
    logger.info('loaded the demo ledger into the empty database');
  }

  const app = await buildApp({ config, db, clock: systemClock, logger });
  await app.listen({ port: config.port, host: config.host });

  const base = `http://localhost:${config.port}`;
  const examples = demo || (await demoPresent(db)) ? demoExampleUrls() : [];
  process.stdout.write(
    [`Ledger Query Service listening on ${base} (${db.backend})`, `  API description: ${base}/api/v1/docs`, ...examples.map((u) => `  ${base}${u}`), ''].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

async function demoPresent(db: Db): Promise<boolean> {
  const rows = await db.query(`select 1 from entity where memo = 'demo ledger' limit 1`);
  return rows.length > 0;
}
