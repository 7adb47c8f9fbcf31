import type { Config } from '../config.js';
import type { Db } from './db.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { migrate } from './migrate.js';

/**
 * Opens the configured backend (PostgreSQL when `db.url` is set, else PGlite) and migrates it unless
 * told not to. A PostgreSQL database is reached once here, so that one that cannot be reached fails
 * the start, not the first request.
 */
export async function openDatabase(config: Config, onError?: (err: Error) => void): Promise<Db> {
  const db = config.db.url
    ? await openPostgres({
        url: config.db.url,
        poolSize: config.db.poolSize,
        statementTimeoutMs: config.db.statementTimeoutMs,
        connectionTimeoutMs: config.db.connectionTimeoutMs,
        onError,
      })
    : await openPglite(config.db.dataDir);
  try {
    if (db.backend === 'postgres') await db.ping();
    if (config.db.migrate) await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}
