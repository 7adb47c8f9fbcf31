/**
 * The bench's datasets: one database (PostgreSQL) or data directory (PGlite) per scale and seed,
 * generated on first use and reused while complete (the generator's marker says so).
 */
import { totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Queryable } from '../src/db/db.js';
import { migrate } from '../src/db/migrate.js';
import { openPgliteHandle } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { generateDataset } from '../src/generate/generate.js';
import type { Progress } from '../src/generate/progress.js';
import type { ScaleName } from '../src/generate/scales.js';
import { pgliteTarget, postgresTarget, type GenerateTarget } from '../src/generate/target.js';
import { PROJECT_ROOT } from '../src/paths.js';
import type { BenchOptions } from './options.js';
import { sampleDataset, type DatasetSample } from './sample.js';

export interface BenchDataset {
  scale: ScaleName;
  /** environment for the server child: which database to serve */
  env: Record<string, string | undefined>;
  sample: DatasetSample;
}

export function benchDatabaseName(scale: ScaleName, seed: number): string {
  return `lqs_bench_${scale}_s${seed}`;
}

export function benchDataDir(scale: ScaleName, seed: number): string {
  return join(PROJECT_ROOT, 'data', 'bench', `${scale}-s${seed}`);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = '/' + name;
  return url.toString();
}

async function openBenchTarget(options: BenchOptions, scale: ScaleName): Promise<{ target: GenerateTarget; env: BenchDataset['env'] }> {
  if (options.backend === 'postgres') {
    const url = await ensureDatabase(options.adminUrl, benchDatabaseName(scale, options.seed));
    const db = await openPostgres({ url, poolSize: 3, statementTimeoutMs: 0, connectionTimeoutMs: 5_000 });
    await migrate(db);
    return { target: postgresTarget(db, url), env: { DATABASE_URL: url, LQS_DB_DATADIR: undefined } };
  }
  const dataDir = benchDataDir(scale, options.seed);
  const handle = await openPgliteHandle(dataDir);
  await migrate(handle.db);
  return { target: pgliteTarget(handle), env: { DATABASE_URL: undefined, LQS_DB_DATADIR: dataDir } };
}

/** The largest database read into the page cache before measuring: it must stay there beside everything else. */
const PREWARM_MEMORY_SHARE = 0.75;

/**
 * Reads the dataset's tables and indexes once into the operating system's page cache (pg_prewarm's
 * `read` mode), so that every measurement finds the same warm cache. Generating a large dataset
 * churns the cache: right after one, 6 of its 15 GB were cached, and the first measurements ran
 * with a quarter of the CPU time waiting on the disk. Skipped, with the reason, when the database
 * is too large for this machine's memory or the extension is not available.
 */
async function prewarm(db: Queryable, progress: Progress): Promise<void> {
  const [size] = await db.query<{ bytes: bigint }>('select pg_database_size(current_database()) as bytes');
  const bytes = Number(size!.bytes);
  const gib = bytes / 2 ** 30;
  if (bytes > totalmem() * PREWARM_MEMORY_SHARE) {
    progress.log(`prewarm skipped: the database (${gib.toFixed(1)} GiB) exceeds ${Math.round(PREWARM_MEMORY_SHARE * 100)}% of the memory`);
    return;
  }
  try {
    await db.query('create extension if not exists pg_prewarm');
    const started = performance.now();
    await db.query(
      `select pg_prewarm(c.oid, 'read') from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'i')`,
    );
    progress.log(`read the ${gib.toFixed(1)} GiB database into the page cache in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    progress.log(`prewarm skipped: ${(err as Error).message}`);
  }
}

/** Generates the dataset unless a complete one is there, reads it into the page cache, then draws the mixes' sample from it. */
export async function prepareDataset(options: BenchOptions, scale: ScaleName, progress: Progress): Promise<BenchDataset> {
  const { target, env } = await openBenchTarget(options, scale);
  try {
    const result = await generateDataset(target, { scale, seed: options.seed, force: options.fresh, replaceOther: true, progress });
    if (options.backend === 'postgres') await prewarm(target.db, progress);
    const sample = await sampleDataset(target.db, result.summary);
    return { scale, env, sample };
  } finally {
    await target.close();
  }
}
