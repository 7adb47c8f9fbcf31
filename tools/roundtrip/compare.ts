/**
 * Row-by-row comparison of two databases' tables: every row of each side as a canonical text (its
 * columns by name, bytes as hex, numbers exact, JSON with sorted keys), compared as multisets, and
 * the first differences told by key: the columns that differ, or the side a row is missing from.
 */
import type { Queryable } from '../../src/db/db.js';

export interface TableSpec {
  table: string;
  /** the columns that identify a row, to pair the two sides' rows when they differ */
  key: string[];
  /** columns left out (load times) */
  skip?: string[];
  /** the column naming the entity a row belongs to (state tables), to tell the section that made it */
  owner?: string;
}

/** The per-transaction tables the ingester writes for each file. */
export const TRANSACTION_TABLES: TableSpec[] = [
  { table: 'record_file', key: ['consensus_end'], skip: ['load_start', 'load_end', 'bytes'] },
  { table: 'transaction', key: ['consensus_timestamp'] },
  { table: 'crypto_transfer', key: ['consensus_timestamp', 'entity_id', 'amount'] },
  { table: 'token_transfer', key: ['consensus_timestamp', 'token_id', 'account_id', 'amount'] },
  { table: 'staking_reward_transfer', key: ['consensus_timestamp', 'account_id'] },
  { table: 'file_data', key: ['consensus_timestamp'] },
];

/** The state tables the service reads, which the state appliers write. */
export const STATE_TABLES: TableSpec[] = [
  { table: 'entity', key: ['id'], owner: 'id' },
  { table: 'entity_history', key: ['id', 'timestamp_range'], owner: 'id' },
  { table: 'token', key: ['token_id'], owner: 'token_id' },
  { table: 'token_account', key: ['account_id', 'token_id'], owner: 'token_id' },
  { table: 'nft', key: ['token_id', 'serial_number'], owner: 'token_id' },
  { table: 'account_balance', key: ['account_id', 'consensus_timestamp'], owner: 'account_id' },
  { table: 'token_balance', key: ['account_id', 'token_id', 'consensus_timestamp'], owner: 'token_id' },
];

export interface TableDifference {
  table: string;
  expectedRows: number;
  ingestedRows: number;
  /** keys whose rows differ: a row on one side only, or on both with a column that differs (counted once) */
  differing: number;
  /** the first differences, one line each */
  examples: string[];
  /** differing keys by the section owning them (tables with an owner column) */
  bySection: Record<string, number>;
}

function canonical(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as object).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

function text(value: unknown): string {
  return JSON.stringify(canonical(value));
}

async function readTable(db: Queryable, spec: TableSpec): Promise<Record<string, unknown>[]> {
  const rows = await db.query<Record<string, unknown>>(`select * from ${spec.table}`);
  const skip = new Set(spec.skip ?? []);
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const c of Object.keys(row).sort()) if (!skip.has(c)) out[c] = canonical(row[c]);
    return out;
  });
}

const keyOf = (spec: TableSpec, row: Record<string, unknown>) => spec.key.map((k) => `${k}=${text(row[k])}`).join(' ');

/** Multiset difference of `a` and `b` by canonical text: the rows of each without a partner. */
function unmatched(a: Record<string, unknown>[], b: Record<string, unknown>[]): [Record<string, unknown>[], Record<string, unknown>[]] {
  const counts = new Map<string, number>();
  for (const row of b) {
    const t = JSON.stringify(row);
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const onlyA: Record<string, unknown>[] = [];
  for (const row of a) {
    const t = JSON.stringify(row);
    const n = counts.get(t) ?? 0;
    if (n > 0) counts.set(t, n - 1);
    else onlyA.push(row);
  }
  const left = new Map(counts);
  const onlyB = b.filter((row) => {
    const t = JSON.stringify(row);
    const n = left.get(t) ?? 0;
    if (n > 0) {
      left.set(t, n - 1);
      return true;
    }
    return false;
  });
  return [onlyA, onlyB];
}

/**
 * `sectionOf` names the section owning an entity id (rows of tables with an owner column are
 * counted under it); `maxExamples` bounds the example lines.
 */
export async function compareTable(
  expected: Queryable,
  ingested: Queryable,
  spec: TableSpec,
  sectionOf: (id: bigint) => string = () => 'all',
  maxExamples = 5,
): Promise<TableDifference> {
  const [a, b] = [await readTable(expected, spec), await readTable(ingested, spec)];
  const [onlyExpected, onlyIngested] = unmatched(a, b);
  const examples: string[] = [];
  const ingestedByKey = new Map(onlyIngested.map((row) => [keyOf(spec, row), row]));
  const paired = onlyExpected.filter((row) => ingestedByKey.has(keyOf(spec, row))).length;
  const bySection: Record<string, number> = {};
  if (spec.owner) {
    const owner = spec.owner;
    const count = (row: Record<string, unknown>) => {
      const section = sectionOf(BigInt(row[owner] as string));
      bySection[section] = (bySection[section] ?? 0) + 1;
    };
    const expectedKeys = new Set(onlyExpected.map((row) => keyOf(spec, row)));
    for (const row of onlyExpected) count(row);
    for (const row of onlyIngested) if (!expectedKeys.has(keyOf(spec, row))) count(row);
  }
  for (const row of onlyExpected) {
    if (examples.length >= maxExamples) break;
    const key = keyOf(spec, row);
    const other = ingestedByKey.get(key);
    if (!other) {
      examples.push(`${spec.table} ${key}: no ingested row`);
      continue;
    }
    ingestedByKey.delete(key);
    const columns = Object.keys(row).filter((c) => text(row[c]) !== text(other[c]));
    examples.push(`${spec.table} ${key}: ${columns.map((c) => `${c} expected ${text(row[c])}, ingested ${text(other[c])}`).join('; ')}`);
  }
  for (const key of ingestedByKey.keys()) {
    if (examples.length >= maxExamples) break;
    examples.push(`${spec.table} ${key}: no expected row`);
  }
  return {
    table: spec.table,
    expectedRows: a.length,
    ingestedRows: b.length,
    differing: onlyExpected.length + onlyIngested.length - paired,
    examples,
    bySection,
  };
}
