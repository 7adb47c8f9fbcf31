import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { UserError } from '../userError.js';
import { checkDataDirAccess, describeDataDirFailure } from './dataDirFailures.js';
import type { Db, Queryable, Row } from './db.js';
import { catalogParsers, reparse, TYPE_CATALOG_SQL, unknownFields, type CatalogRow, type TextParser } from './typeCatalog.js';
import { ownParsers } from './typeParsers.js';

// the third argument, an array type id, only picks the delimiter (`;` for box[]): 0 means a comma
const generalArray =
  (element: TextParser): TextParser =>
  (text) =>
    types.arrayParser(text, element, 0);
const parsers = ownParsers(generalArray);

/**
 * Registers the parsers of the database's own domains, enums and their arrays among PGlite's (whose
 * array parsers look their element's parser up when they run).
 */
async function loadTypes(pg: PGlite, run: Pick<PGlite, 'query'> = pg): Promise<void> {
  const { rows } = await run.query<CatalogRow>(TYPE_CATALOG_SQL);
  const builtin = (oid: number): TextParser => (pg.parsers[oid] as TextParser | undefined) ?? ((text) => text);
  for (const [oid, parser] of catalogParsers(rows, builtin, generalArray)) pg.parsers[oid] = parser;
}

/** `run` is the database itself, or an open transaction on it. */
function queryable(pg: PGlite, run: Pick<PGlite, 'query'>, opaque: Set<number>): Queryable {
  const knows = (oid: number) => oid in pg.parsers || opaque.has(oid);
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await run.query<R>(text, params as unknown[]);
      const unknown = unknownFields(result.fields, knows);
      if (unknown.length > 0) {
        // a type created since the catalog was read: its values arrived as text
        await loadTypes(pg, run);
        for (const field of unknown) if (!(field.dataTypeID in pg.parsers)) opaque.add(field.dataTypeID);
        reparse(result.rows as Record<string, unknown>[], unknown, (oid) => pg.parsers[oid] as TextParser | undefined);
      }
      return result.rows;
    },
  };
}

/** The `db.dataDir` that keeps the embedded database in memory (an empty one does too). */
export const IN_MEMORY = 'memory';

export function isInMemory(dataDir: string): boolean {
  return dataDir === '' || dataDir === IN_MEMORY;
}

/** Who holds a data directory's lock, recorded beside it (`<dir>.lock.owner`) as postmaster.pid does. */
interface LockOwner {
  pid: number;
  hostname: string;
  /** the process's start on Linux (/proc/<pid>/stat, clock ticks since boot): tells a reused pid apart */
  started: string | null;
}

function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (in parentheses, which may hold spaces); start time is the 22nd
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the recorded holder of a lock is gone: on this host, and its pid is not running (or runs
 * another process than the one that took the lock, or is this process, which does not hold it).
 * Unknown (no record, another host, a record unread): not gone, and the lock's own staleness applies.
 */
function holderGone(ownerFile: string): boolean {
  let owner: LockOwner;
  try {
    owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as LockOwner;
  } catch {
    return false;
  }
  if (typeof owner.pid !== 'number' || owner.hostname !== hostname()) return false;
  if (owner.pid === process.pid || !alive(owner.pid)) return true;
  const started = startOf(owner.pid);
  return owner.started !== null && started !== null && started !== owner.started;
}

/**
 * Takes the lock of a data directory (`<dir>.lock`, beside it), refusing when another process holds
 * it: PGlite has no lock of its own, and a second process on the same files corrupts them. The lock
 * is refreshed while held and counts as stale 10 s after its last refresh; a lock whose recorded
 * holder is no longer running on this host (killed, crashed) is free at once.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const dir = resolve(dataDir);
  const ownerFile = `${dir}.lock.owner`;
  const options = {
    stale: 10_000,
    retries: 0,
    realpath: false,
    onCompromised: (err: Error) => process.emitWarning(`the lock of the data directory ${dir} was lost: ${err.message}`),
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, options);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ELOCKED') throw err;
    if (!holderGone(ownerFile)) {
      throw new UserError(
        `the data directory ${dir} (db.dataDir, LQS_DB_DATADIR) is in use by another process (lock ${dir}.lock); stop that process, or choose another directory or LQS_DB_DATADIR=memory`,
      );
    }
    rmSync(`${dir}.lock`, { recursive: true, force: true });
    release = await lockfile.lock(dir, options);
  }
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), started: startOf(process.pid) };
  writeFileSync(ownerFile, `${JSON.stringify(owner)}\n`);
  return async () => {
    rmSync(ownerFile, { force: true });
    await release();
  };
}

/**
 * The embedded database: PostgreSQL compiled to WASM, one connection, data in `dataDir` (in memory
 * for `memory` or empty). `from` is a data directory dumped by PGlite (`dumpDataDir`) to start
 * from instead of an empty database, which skips the initdb of a new one.
 */
export async function openPglite(dataDir: string, from?: Blob): Promise<Db> {
  return (await openPgliteHandle(dataDir, from)).db;
}

/** Like openPglite, also returning the PGlite instance itself (bulk loads use its COPY from a blob). */
export async function openPgliteHandle(dataDir: string, from?: Blob): Promise<{ db: Db; pg: PGlite }> {
  const create = async (dir: string | undefined, unlock: () => Promise<void>) => {
    const pg = await PGlite.create(dir, { parsers, ...(from ? { loadDataDir: from } : {}) });
    await loadTypes(pg);
    return { db: pgliteDb(pg, unlock), pg };
  };
  if (isInMemory(dataDir)) return create(undefined, async () => undefined);
  // a failure of the directory's files is told as one line naming it and the fix
  const explained = (err: unknown) => {
    const line = describeDataDirFailure(err, dataDir);
    return line ? new UserError(line) : err;
  };
  checkDataDirAccess(dataDir, (line) => new UserError(line));
  let unlock: () => Promise<void>;
  try {
    mkdirSync(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  } catch (err) {
    throw explained(err);
  }
  try {
    return await create(dataDir, unlock);
  } catch (err) {
    await unlock();
    throw explained(err);
  }
}

function pgliteDb(pg: PGlite, unlock: () => Promise<void>): Db {
  // types of the database read as they come (composite types and the like), not looked up again
  const opaque = new Set<number>();
  const q = queryable(pg, pg, opaque);
  return {
    backend: 'pglite',
    query: q.query,
    async exec(sql) {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn(queryable(pg, tx, opaque))),
    async ping() {
      await pg.query('select 1');
    },
    refreshTypes: () => loadTypes(pg),
    async close() {
      if (!pg.closed) await pg.close();
      await unlock().catch(() => undefined);
    },
  };
}
