import type { Config } from '../config.js';
import type { Db } from './db.js';
import { openPglite } from './pglite.js';
import type { PoolLogger } from './poolNotices.js';
import { openPostgres } from './postgres.js';
import { migrate } from './migrate.js';
import { postgresTls } from './tls.js';
import { ReplicatedDb, type ReplicaOptions } from './replicas.js';

/**
 * Opens the configured backend (PostgreSQL when `db.url` is set, else PGlite) and migrates it unless
 * told not to. A PostgreSQL database is reached once here, so that one that cannot be reached fails
 * the start, not the first request. With `db.replicas`, reads are spread over them (src/db/replicas.ts).
 */
export async function openDatabase(
  config: Config,
  onError?: (err: Error) => void,
  onReplicaState?: ReplicaOptions['onStateChange'],
  logger?: PoolLogger,
  /** a new connection to the primary was made */
  onConnect?: () => void,
): Promise<Db> {
  const ssl = config.db.url ? postgresTls(config.db) : undefined;
  const postgres = (url: string, connected?: () => void) =>
    openPostgres({
      ssl,
      url,
      poolSize: config.db.poolSize,
      statementTimeoutMs: config.db.statementTimeoutMs,
      lockTimeoutMs: config.db.lockTimeoutMs,
      connectionTimeoutMs: config.db.connectionTimeoutMs,
      preparedStatements: config.db.preparedStatements,
      onError,
      onConnect: connected,
      logger,
    });
  const db = config.db.url ? await postgres(config.db.url, onConnect) : await openPglite(config.db.dataDir);
  try {
    if (db.backend === 'postgres') await db.ping();
    if (config.db.migrate) await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  if (config.db.replicas.length === 0) return db;
  // replicas are not required at start-up: one that cannot be reached stays out of the rotation until it answers
  const replicated = new ReplicatedDb(db, await Promise.all(config.db.replicas.map((url) => postgres(url))), {
    maxLagMs: config.db.maxReplicaLagMs,
    checkIntervalMs: config.db.replicaCheckIntervalMs,
    onStateChange: onReplicaState,
  });
  await replicated.check();
  return replicated;
}
