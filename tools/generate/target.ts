/** The database a dataset is generated into, with the bulk-load path that suits its backend. */
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { isInMemory, openPgliteHandle } from '../../src/db/pglite.js';
import { UserError } from '../../src/userError.js';
import { openPostgres } from '../../src/db/postgres.js';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { PgliteCopySink, PostgresCopySink, type RowSink } from './sink.js';

export interface GenerateTarget {
  readonly db: Db;
  createSink(): RowSink;
  /** runs one maintenance statement (index builds get more memory on PostgreSQL) */
  maintenance(sql: string): Promise<void>;
  /** index builds that may run at once */
  readonly parallelMaintenance: number;
  /** characters buffered per table before a chunk goes to the database */
  readonly chunkSize: number;
  close(): Promise<void>;
}

export function postgresTarget(db: Db, url: string): GenerateTarget {
  return {
    db,
    createSink: () => new PostgresCopySink(url),
    maintenance: (sql) =>
      db.transaction(async (tx) => {
        await tx.query(`set local maintenance_work_mem = '1GB'`);
        await tx.query(sql);
      }),
    parallelMaintenance: 2,
    chunkSize: 1 << 20,
    close: () => db.close(),
  };
}

export function pgliteTarget(handle: { db: Db; pg: PGlite }, closeWith = true): GenerateTarget {
  return {
    db: handle.db,
    createSink: () => new PgliteCopySink(handle.pg),
    maintenance: (sql) => handle.db.exec(sql),
    parallelMaintenance: 1,
    chunkSize: 8 << 20,
    close: async () => {
      if (closeWith) await handle.db.close();
    },
  };
}

/**
 * The project's migrations, unless `db.migrate` is off or the database was created by a mirror
 * node's own migrations (its schema is the mirror node's to change, never the project's).
 */
async function migrateUnlessMirror(db: Db, config: Config): Promise<void> {
  if (!config.db.migrate || (await isMirrorNodeDatabase(db))) return;
  await migrate(db);
}

/**
 * The configured database: PostgreSQL when `db.url` is set, else PGlite in `db.dataDir`; migrated
 * to the project's schema unless it is a mirror node's.
 */
export async function openTarget(config: Config): Promise<GenerateTarget> {
  if (config.db.url) {
    // index builds at the large scale take minutes: no statement timeout here
    const db = await openPostgres({
      url: config.db.url,
      poolSize: 3,
      statementTimeoutMs: 0,
      connectionTimeoutMs: config.db.connectionTimeoutMs,
    });
    await migrateUnlessMirror(db, config);
    return postgresTarget(db, config.db.url);
  }
  if (isInMemory(config.db.dataDir))
    throw new UserError(
      'generate needs a database that outlives it: set DATABASE_URL, or LQS_DB_DATADIR to a directory for the embedded one',
    );
  const handle = await openPgliteHandle(config.db.dataDir);
  await migrateUnlessMirror(handle.db, config);
  return pgliteTarget(handle);
}
