/**
 * The `lqs_dataset` marker that tells a complete synthetic dataset from a half-written one, and
 * the index bookkeeping around a bulk load: definitions are saved in the marker before they are
 * dropped, so that an interrupted load can always put them back.
 */
import type { Queryable } from '../db/db.js';

export const GENERATOR_VERSION = 1;

export type DatasetStatus = 'loading' | 'complete';

export interface IndexDefinition {
  table: string;
  name: string;
  /** a primary key or unique constraint, or a plain index */
  kind: 'constraint' | 'index';
  /** `PRIMARY KEY (…)` for constraints, the full `CREATE INDEX …` for indexes */
  definition: string;
}

export interface DatasetSummary {
  scale: string;
  seed: number;
  generatorVersion: number;
  shard: string;
  realm: string;
  /** int64 nanosecond text of the first and last consensus timestamps of the window */
  windowStart: string;
  windowEnd: string;
  blocks: number;
  rows: Record<string, number>;
  totalRows: number;
  transactions: { topLevel: number; children: number };
  contractResults: number;
  snapshots: { total: number; full: number };
  layout: {
    firstAccount: number;
    accounts: number;
    firstContract: number;
    contracts: number;
    firstToken: number;
    fungibleTokens: number;
    nftCollections: number;
  };
  hubs: Record<string, number>;
  /** [account num, NFTs owned], most first */
  topNftOwners: [number, number][];
  load: { seconds: number; rowsPerSecond: number; indexSeconds: number; analyzeSeconds: number; backend: string };
}

export interface DatasetMarker {
  status: DatasetStatus;
  scale: string;
  seed: number;
  generatorVersion: number;
  startedAt: Date;
  completedAt: Date | null;
  indexes: IndexDefinition[] | null;
  summary: DatasetSummary | null;
}

export async function ensureMarkerTable(db: Queryable): Promise<void> {
  await db.query(`create table if not exists lqs_dataset (
    id                smallint    primary key default 1 check (id = 1),
    status            text        not null,
    scale             text        not null,
    seed              bigint      not null,
    generator_version integer     not null,
    started_at        timestamptz not null default now(),
    completed_at      timestamptz,
    indexes           jsonb,
    summary           jsonb
  )`);
}

interface MarkerRow {
  status: DatasetStatus;
  scale: string;
  seed: bigint;
  generator_version: number;
  started_at: Date;
  completed_at: Date | null;
  indexes: IndexDefinition[] | null;
  summary: DatasetSummary | null;
}

/** The marker, or null when the database holds none (or not even the table). */
export async function readMarker(db: Queryable): Promise<DatasetMarker | null> {
  const exists = await db.query<{ present: boolean }>(`select to_regclass('lqs_dataset') is not null as present`);
  if (!exists[0]?.present) return null;
  const rows = await db.query<MarkerRow>('select status, scale, seed, generator_version, started_at, completed_at, indexes, summary from lqs_dataset where id = 1');
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    scale: row.scale,
    seed: Number(row.seed),
    generatorVersion: row.generator_version,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    indexes: row.indexes,
    summary: row.summary,
  };
}

export async function markLoading(db: Queryable, scale: string, seed: number, indexes: IndexDefinition[]): Promise<void> {
  await db.query(
    `insert into lqs_dataset (id, status, scale, seed, generator_version, started_at, completed_at, indexes, summary)
     values (1, 'loading', $1, $2, $3, now(), null, $4::jsonb, null)
     on conflict (id) do update set status = 'loading', scale = excluded.scale, seed = excluded.seed,
       generator_version = excluded.generator_version, started_at = now(), completed_at = null,
       indexes = excluded.indexes, summary = null`,
    [scale, seed, GENERATOR_VERSION, JSON.stringify(indexes)],
  );
}

export async function markComplete(db: Queryable, summary: DatasetSummary): Promise<void> {
  await db.query(`update lqs_dataset set status = 'complete', completed_at = now(), summary = $1::jsonb where id = 1`, [JSON.stringify(summary)]);
}

/** The complete dataset's summary; throws with the reason when the database holds no complete one. */
export async function requireCompleteDataset(db: Queryable): Promise<DatasetSummary> {
  const marker = await readMarker(db);
  if (!marker) throw new Error('the database holds no generated dataset (run `generate` first)');
  if (marker.status !== 'complete' || !marker.summary) {
    throw new Error(`the dataset in the database is incomplete (a load of ${marker.scale} started at ${marker.startedAt.toISOString()} did not finish); run \`generate\` again`);
  }
  return marker.summary;
}

/** Primary keys, unique constraints and indexes of `tables` in the current schema. */
export async function captureIndexes(db: Queryable, tables: readonly string[]): Promise<IndexDefinition[]> {
  const constraints = await db.query<{ table: string; name: string; definition: string }>(
    `select t.relname as table, c.conname as name, pg_get_constraintdef(c.oid) as definition
     from pg_constraint c
     join pg_class t on t.oid = c.conrelid
     join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() and c.contype in ('p', 'u') and t.relname = any($1)
     order by t.relname, c.conname`,
    [tables],
  );
  const indexes = await db.query<{ table: string; name: string; definition: string }>(
    `select t.relname as table, ic.relname as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i
     join pg_class ic on ic.oid = i.indexrelid
     join pg_class t on t.oid = i.indrelid
     join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = current_schema() and t.relname = any($1)
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
     order by t.relname, ic.relname`,
    [tables],
  );
  return [
    ...constraints.map((c) => ({ ...c, kind: 'constraint' as const })),
    ...indexes.map((i) => ({ ...i, kind: 'index' as const })),
  ];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Drops the indexes and constraints so that the load writes bare tables. */
export async function dropIndexes(db: Queryable, definitions: readonly IndexDefinition[]): Promise<void> {
  for (const d of definitions) {
    if (d.kind === 'index') await db.query(`drop index if exists ${quote(d.name)}`);
  }
  for (const d of definitions) {
    if (d.kind === 'constraint') await db.query(`alter table ${quote(d.table)} drop constraint if exists ${quote(d.name)}`);
  }
}

async function presentNames(db: Queryable, tables: readonly string[]): Promise<Set<string>> {
  return new Set((await captureIndexes(db, tables)).map((d) => `${d.table}.${d.name}`));
}

/**
 * Recreates what is missing of `definitions` (constraints first, as the reference's keys are the
 * backbone of most queries), running up to `parallel` builds at once.
 */
export async function restoreIndexes(
  run: (sql: string) => Promise<void>,
  db: Queryable,
  definitions: readonly IndexDefinition[],
  parallel: number,
  onBuilt: (d: IndexDefinition, seconds: number) => void = () => undefined,
): Promise<number> {
  const tables = [...new Set(definitions.map((d) => d.table))];
  const present = await presentNames(db, tables);
  const missing = definitions.filter((d) => !present.has(`${d.table}.${d.name}`));
  const statement = (d: IndexDefinition) =>
    d.kind === 'constraint' ? `alter table ${quote(d.table)} add constraint ${quote(d.name)} ${d.definition}` : d.definition;
  const queue = [...missing.filter((d) => d.kind === 'constraint'), ...missing.filter((d) => d.kind === 'index')];
  const worker = async () => {
    for (let d = queue.shift(); d; d = queue.shift()) {
      const started = performance.now();
      await run(statement(d));
      onBuilt(d, (performance.now() - started) / 1000);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  return missing.length;
}
