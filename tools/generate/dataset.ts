/**
 * The `lqs_dataset` marker that tells a complete synthetic dataset from a half-written one, and
 * the index bookkeeping around a bulk load: definitions are saved in the marker before they are
 * dropped, so that an interrupted load can always put them back.
 */
import type { Queryable } from '../../src/db/db.js';

export const GENERATOR_VERSION = 1;

export type DatasetStatus = 'loading' | 'complete';

export interface IndexDefinition {
  table: string;
  name: string;
  /** a primary key or unique constraint, or a plain index */
  kind: 'constraint' | 'index';
  /** `PRIMARY KEY (…)` for constraints, the full `CREATE INDEX …` for indexes */
  definition: string;
  /** on a partitioned table */
  partitioned?: boolean;
  /** on a partition: the partitioned table's index this one is attached to */
  parent?: string;
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
  const rows = await db.query<MarkerRow>(
    'select status, scale, seed, generator_version, started_at, completed_at, indexes, summary from lqs_dataset where id = 1',
  );
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
  await db.query(`update lqs_dataset set status = 'complete', completed_at = now(), summary = $1::jsonb where id = 1`, [
    JSON.stringify(summary),
  ]);
}

/** The complete dataset's summary; throws with the reason when the database holds no complete one. */
export async function requireCompleteDataset(db: Queryable): Promise<DatasetSummary> {
  const marker = await readMarker(db);
  if (!marker) throw new Error('the database holds no generated dataset (run `generate` first)');
  if (marker.status !== 'complete' || !marker.summary) {
    throw new Error(
      `the dataset in the database is incomplete (a load of ${marker.scale} started at ${marker.startedAt.toISOString()} did not finish); run \`generate\` again`,
    );
  }
  return marker.summary;
}

/**
 * Primary keys, unique constraints and indexes of `tables` in the current schema, and of their
 * partitions (a mirror node's `account_balance`, `token_balance` and `transaction_hash`): a
 * partition's index names the partitioned index it is attached to as `parent`.
 */
export async function captureIndexes(db: Queryable, tables: readonly string[]): Promise<IndexDefinition[]> {
  const tree = `with recursive tree (oid) as (
      select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relname = any($1)
      union all
      select h.inhrelid from pg_inherits h join tree on h.inhparent = tree.oid
    )`;
  const constraints = await db.query<{ table: string; name: string; definition: string; partitioned: boolean; parent: string | null }>(
    `${tree}
     select t.relname as table, c.conname as name, pg_get_constraintdef(c.oid) as definition,
            t.relkind = 'p' as partitioned, p.conname as parent
     from pg_constraint c
     join pg_class t on t.oid = c.conrelid
     left join pg_constraint p on p.oid = c.conparentid
     where c.contype in ('p', 'u') and c.conrelid in (select oid from tree)
     order by t.relname, c.conname`,
    [tables],
  );
  const indexes = await db.query<{ table: string; name: string; definition: string; partitioned: boolean; parent: string | null }>(
    `${tree}
     select t.relname as table, ic.relname as name, pg_get_indexdef(i.indexrelid) as definition,
            t.relkind = 'p' as partitioned,
            (select pc.relname from pg_inherits h join pg_class pc on pc.oid = h.inhparent where h.inhrelid = i.indexrelid) as parent
     from pg_index i
     join pg_class ic on ic.oid = i.indexrelid
     join pg_class t on t.oid = i.indrelid
     where i.indrelid in (select oid from tree)
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
     order by t.relname, ic.relname`,
    [tables],
  );
  const definition = (row: (typeof indexes)[number], kind: IndexDefinition['kind']): IndexDefinition => ({
    table: row.table,
    name: row.name,
    kind,
    definition: row.definition,
    ...(row.partitioned ? { partitioned: true } : {}),
    ...(row.parent !== null ? { parent: row.parent } : {}),
  });
  return [...constraints.map((c) => definition(c, 'constraint')), ...indexes.map((i) => definition(i, 'index'))];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Drops the indexes and constraints so that the load writes bare tables. A partitioned table's
 * index or key goes first and takes its partitions' along.
 */
export async function dropIndexes(db: Queryable, definitions: readonly IndexDefinition[]): Promise<void> {
  const ordered = [...definitions.filter((d) => !d.parent), ...definitions.filter((d) => d.parent)];
  for (const d of ordered) {
    if (d.kind === 'index') await db.query(`drop index if exists ${quote(d.name)}`);
  }
  for (const d of ordered) {
    if (d.kind === 'constraint') await db.query(`alter table ${quote(d.table)} drop constraint if exists ${quote(d.name)}`);
  }
}

async function presentNames(db: Queryable, tables: readonly string[]): Promise<Set<string>> {
  return new Set((await captureIndexes(db, tables)).map((d) => `${d.table}.${d.name}`));
}

/**
 * Recreates what is missing of `definitions` (constraints first, as the reference's keys are the
 * backbone of most queries), running up to `parallel` builds at once. A partitioned table's index
 * whose partitions' indexes are listed is rebuilt as pg_dump does: the parent `ON ONLY`, each
 * partition's under its own name, then attached; without them, it is created on the whole tree.
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
  const parents = new Set(definitions.flatMap((d) => (d.parent ? [d.parent] : [])));
  const only = (d: IndexDefinition) => Boolean(d.partitioned && parents.has(d.name));
  const statement = (d: IndexDefinition) => {
    if (d.kind === 'constraint')
      return `alter table ${only(d) || d.parent ? 'only ' : ''}${quote(d.table)} add constraint ${quote(d.name)} ${d.definition}`;
    return d.partitioned && !only(d) ? d.definition.replace(/ ON ONLY /, ' ON ') : d.definition;
  };
  // the partitioned parents first: `ON ONLY` builds nothing, the partitions' builds come next
  for (const d of missing.filter(only)) await run(statement(d));
  const builds = missing.filter((d) => !only(d));
  const queue = [...builds.filter((d) => d.kind === 'constraint'), ...builds.filter((d) => d.kind === 'index')];
  const partitionSeconds = new Map<string, number>();
  const worker = async () => {
    for (let d = queue.shift(); d; d = queue.shift()) {
      const started = performance.now();
      await run(statement(d));
      const seconds = (performance.now() - started) / 1000;
      if (d.parent) partitionSeconds.set(d.parent, (partitionSeconds.get(d.parent) ?? 0) + seconds);
      else onBuilt(d, seconds);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  // attach every partition's index that is not yet (an interrupted load may have built some)
  const children = definitions.filter((d) => d.parent);
  if (children.length > 0) {
    const attached = await db.query<{ name: string }>(
      `select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relname = any($1)`,
      [children.map((d) => d.name)],
    );
    const done = new Set(attached.map((r) => r.name));
    for (const d of children) if (!done.has(d.name)) await run(`alter index ${quote(d.parent!)} attach partition ${quote(d.name)}`);
    for (const d of definitions.filter(only)) {
      const seconds = partitionSeconds.get(d.name);
      if (seconds !== undefined) onBuilt(d, seconds);
    }
  }
  return missing.length;
}
