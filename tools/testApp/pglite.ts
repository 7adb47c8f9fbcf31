/**
 * The embedded database of the test apps. An in-memory one starts from a snapshot of a migrated
 * database instead of an empty one: creating a PGlite database runs initdb and the migrations,
 * which dominate a test file's start, whereas loading a dumped data directory skips both. The
 * snapshot is made by the first process that needs it and kept in the temporary folder under a
 * name derived from PGlite's version and the migrations, so every test process of a run (and the
 * next runs, until a migration changes) loads it; it is never part of the repository.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { isInMemory, openPgliteHandle as openService } from '../../src/db/pglite.js';
import { MIGRATIONS_DIR, PROJECT_ROOT } from '../../src/paths.js';

/** The snapshot file of this PGlite version and these migrations. */
function snapshotFile(): string {
  const hash = createHash('sha256');
  const pgliteManifest = join(PROJECT_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  hash.update(JSON.parse(readFileSync(pgliteManifest, 'utf8')).version as string);
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(name);
    hash.update(readFileSync(join(MIGRATIONS_DIR, name)));
  }
  return join(tmpdir(), `lqs-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

async function loadOrMakeSnapshot(): Promise<Blob> {
  const file = snapshotFile();
  try {
    return new Blob([await readFile(file)]);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  const { db, pg } = await openService('');
  try {
    await migrate(db);
    // uncompressed: every test process loads it, and gunzipping would cost each a quarter of its opening
    const snapshot = await pg.dumpDataDir('none');
    // written aside and renamed: processes making it at the same time never read half a file
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, new Uint8Array(await snapshot.arrayBuffer()));
    await rename(partial, file);
    return snapshot;
  } finally {
    await db.close();
  }
}

let snapshot: Promise<Blob> | undefined;

/** Like src/db/pglite.ts's openPgliteHandle; in memory, the database is already migrated. */
export async function openPgliteHandle(dataDir: string): Promise<{ db: Db; pg: PGlite }> {
  if (!isInMemory(dataDir)) return openService(dataDir);
  snapshot ??= loadOrMakeSnapshot();
  return openService(dataDir, await snapshot);
}

/** Like src/db/pglite.ts's openPglite; in memory, the database is already migrated. */
export async function openPglite(dataDir: string): Promise<Db> {
  return (await openPgliteHandle(dataDir)).db;
}

/**
 * Fills the empty or absent `dataDir` with a migrated database from the snapshot, as `lqs migrate`
 * would: for tests whose service processes open a data directory.
 */
export async function migratedDataDir(dataDir: string): Promise<void> {
  snapshot ??= loadOrMakeSnapshot();
  const { db } = await openService(dataDir, await snapshot);
  await db.close();
}
