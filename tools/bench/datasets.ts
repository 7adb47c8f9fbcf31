/**
 * The bench's datasets: one database (PostgreSQL) or data directory (PGlite) per scale and seed,
 * generated on first use and reused while complete (the generator's marker says so).
 */
import { totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Queryable } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPgliteHandle } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { loadMirrorSchema, type SchemaKind } from '../db/scratch.js';
import { generateDataset } from '../generate/generate.js';
import type { Progress } from '../generate/progress.js';
import type { ScaleName } from '../generate/scales.js';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { pgliteTarget, postgresTarget, type GenerateTarget } from '../generate/target.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { BenchOptions } from './options.js';
import { sampleDataset, type DatasetSample } from './sample.js';

export interface BenchDataset {
  scale: ScaleName;
  /** environment for the server child: which database to serve */
  env: Record<string, string | undefined>;
  sample: DatasetSample;
}

export function benchDatabaseName(scale: ScaleName, seed: number, schema: SchemaKind = 'project'): string {
  return schema === 'mirror' ? `lqs_bench_mirror_${scale}_s${seed}` : `lqs_bench_${scale}_s${seed}`;
}

/** The role that serves the mirror-schema datasets: SELECT on their tables, nothing else. */
export const BENCH_READER_ROLE = 'lqs_bench_reader';

export function benchDataDir(scale: ScaleName, seed: number): string {
  return join(PROJECT_ROOT, 'data', 'bench', `${scale}-s${seed}`);
}

async function onServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The URL of `url`'s database as a login role that may only read its tables (created on first
 * use, granted again after every load: the generator's marker table is new in a fresh database).
 */
async function readerUrl(adminUrl: string, url: string, database: string): Promise<string> {
  await onServer(adminUrl, (admin) =>
    admin.query(`do $$ begin
        if not exists (select 1 from pg_roles where rolname = '${BENCH_READER_ROLE}') then
          create role ${BENCH_READER_ROLE} login password '${BENCH_READER_ROLE}';
        end if;
      exception when duplicate_object then null;
      end $$`),
  );
  await onServer(url, (owner) =>
    owner.query(`grant connect on database ${database} to ${BENCH_READER_ROLE};
      grant usage on schema public to ${BENCH_READER_ROLE};
      grant select on all tables in schema public to ${BENCH_READER_ROLE};`),
  );
  const reader = new URL(url);
  reader.username = BENCH_READER_ROLE;
  reader.password = BENCH_READER_ROLE;
  return reader.toString();
}

/**
 * A mirror-schema dataset's database holds the mirror node's schema: loaded from the shared dump
 * when the database is new (or empty), refused when it holds the project's tables instead.
 */
async function ensureMirrorSchema(url: string, name: string, progress: Progress): Promise<void> {
  const state = await onServer(url, async (client) => {
    const { rows } = await client.query<{ tables: boolean }>(`select to_regclass('entity') is not null as tables`);
    return rows[0]!.tables;
  });
  if (!state) {
    const started = performance.now();
    await loadMirrorSchema(url);
    progress.log(`created the mirror node's schema in ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
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

async function openBenchTarget(
  options: BenchOptions,
  scale: ScaleName,
  progress: Progress,
): Promise<{ target: GenerateTarget; env: BenchDataset['env'] }> {
  if (options.backend === 'postgres') {
    const name = benchDatabaseName(scale, options.seed, options.schema);
    const url = await ensureDatabase(options.adminUrl, name);
    if (options.schema === 'mirror') await ensureMirrorSchema(url, name, progress);
    const db = await openPostgres({ url, poolSize: 3, statementTimeoutMs: 0, connectionTimeoutMs: 5_000 });
    const mirror = await isMirrorNodeDatabase(db);
    if (mirror !== (options.schema === 'mirror')) {
      await db.close();
      throw new Error(
        `${name} holds ${mirror ? "a mirror node's schema" : "the project's schema"}, not the ${options.schema} schema; drop it (dropdb ${name})`,
      );
    }
    // never the project's migrations on a mirror node's schema
    if (!mirror) await migrate(db);
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
  const { target, env } = await openBenchTarget(options, scale, progress);
  try {
    const result = await generateDataset(target, { scale, seed: options.seed, force: options.fresh, replaceOther: true, progress });
    if (options.backend === 'postgres') await prewarm(target.db, progress);
    const sample = await sampleDataset(target.db, result.summary);
    if (options.schema === 'mirror') {
      // served as an operator serves a mirror node database: a role that can only SELECT, migrations off
      const url = await readerUrl(options.adminUrl, env.DATABASE_URL!, benchDatabaseName(scale, options.seed, options.schema));
      return { scale, env: { ...env, DATABASE_URL: url }, sample };
    }
    return { scale, env, sample };
  } finally {
    await target.close();
  }
}
