import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { UserError } from '../userError.js';
import type { Db, Queryable, Row } from './db.js';
import { ownParsers } from './typeParsers.js';

// the third argument, an array type id, only picks the delimiter (`;` for box[]): 0 means a comma
const parsers = ownParsers((element) => (text) => types.arrayParser(text, element, 0));

function queryable(pg: Pick<PGlite, 'query'>): Queryable {
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await pg.query<R>(text, params as unknown[]);
      return result.rows;
    },
  };
}

/** The `db.dataDir` that keeps the embedded database in memory (an empty one does too). */
export const IN_MEMORY = 'memory';

export function isInMemory(dataDir: string): boolean {
  return dataDir === '' || dataDir === IN_MEMORY;
}

/**
 * Takes the lock of a data directory (`<dir>.lock`, beside it), refusing when another process holds
 * it: PGlite has no lock of its own, and a second process on the same files corrupts them. The lock
 * is refreshed while held and counts as stale 10 s after its holder died.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const dir = resolve(dataDir);
  try {
    return await lockfile.lock(dir, {
      stale: 10_000,
      retries: 0,
      realpath: false,
      onCompromised: (err) => process.emitWarning(`the lock of the data directory ${dir} was lost: ${err.message}`),
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOCKED') {
      throw new UserError(
        `the data directory ${dir} (db.dataDir, LQS_DB_DATADIR) is in use by another process (lock ${dir}.lock); stop that process, or choose another directory or LQS_DB_DATADIR=memory`,
      );
    }
    throw err;
  }
}

/** The embedded database: PostgreSQL compiled to WASM, one connection, data in `dataDir` (in memory for `memory` or empty). */
export async function openPglite(dataDir: string): Promise<Db> {
  return (await openPgliteHandle(dataDir)).db;
}

/** Like openPglite, also returning the PGlite instance itself (bulk loads use its COPY from a blob). */
export async function openPgliteHandle(dataDir: string): Promise<{ db: Db; pg: PGlite }> {
  if (isInMemory(dataDir)) {
    const pg = await PGlite.create(undefined, { parsers });
    return { db: pgliteDb(pg, async () => undefined), pg };
  }
  mkdirSync(dataDir, { recursive: true });
  const unlock = await lockDataDir(dataDir);
  try {
    const pg = await PGlite.create(dataDir, { parsers });
    return { db: pgliteDb(pg, unlock), pg };
  } catch (err) {
    await unlock();
    throw err;
  }
}

function pgliteDb(pg: PGlite, unlock: () => Promise<void>): Db {
  const q = queryable(pg);
  return {
    backend: 'pglite',
    query: q.query,
    async exec(sql) {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn(queryable(tx))),
    async ping() {
      await pg.query('select 1');
    },
    async close() {
      if (!pg.closed) await pg.close();
      await unlock().catch(() => undefined);
    },
  };
}
