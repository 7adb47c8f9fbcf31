import type { Config } from '../config.js';
import type { Db } from './db.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import { migrate } from './migrate.js';

/** Opens the configured backend (PostgreSQL when `db.url` is set, else PGlite) and migrates it unless told not to. */
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
  if (config.db.migrate) {
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  return db;
}
