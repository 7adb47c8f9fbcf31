/**
 * The indexes of the service's own migrations that a mirror node database lacks. The answers are
 * the same without them; some requests on busy accounts are slower. `lqs indexes` adds them to a
 * database in use: each built CONCURRENTLY (writers are not blocked), and on a partitioned table
 * per partition, then attached to an index on the parent, as PostgreSQL requires. Running it
 * again adds what is missing and rebuilds what an interrupted run left invalid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../paths.js';
import type { Db, Queryable } from './db.js';
import { splitStatements } from './migrate.js';

/** The migrations that only add indexes to the mirror node's tables. */
const INDEX_MIGRATIONS = ['0002_accounts_indexes.sql', '0003_entity_transaction_timestamp_payer.sql', '0004_token_balance_latest.sql'];

export interface OptionalIndex {
  name: string;
  table: string;
  /** what follows `on <table>`: the key, `include` and `where` clauses */
  definition: string;
}

const CREATE_INDEX = /^create index if not exists (\w+) on (\w+) (.+)$/is;

/**
 * The pages each optional index speeds up, as an operator reads it in the start-up warning, the
 * readiness details and the `lqs_optional_index_missing` gauge's help.
 */
export const PAGES_SLOWED_WITHOUT: Readonly<Record<string, string>> = {
  transaction__payer_type_timestamp: 'account transactions with transactiontype (the account as payer), for types rare in its history',
  transaction__type_timestamp_payer:
    'account transactions with transactiontype (transfers in transactions others pay, completed by merges)',
  entity_transaction__entity_type_timestamp:
    'account transactions with transactiontype (entity_transaction rows), for types rare in its history',
  crypto_transfer__entity_timestamp_nonself: 'account transactions with transactiontype (hbar transfers in transactions others pay)',
  token_transfer__account_timestamp_nonself: 'account transactions with transactiontype (token transfers in transactions others pay)',
  entity_transaction__entity_timestamp_payer: 'account transactions (entity_transaction rows read from the table)',
  token_balance__account_token_latest: 'account with timestamp (historical token balances)',
};

export function optionalIndexes(dir = MIGRATIONS_DIR): OptionalIndex[] {
  return INDEX_MIGRATIONS.flatMap((file) =>
    splitStatements(readFileSync(join(dir, file), 'utf8')).map((statement) => {
      const match = CREATE_INDEX.exec(statement.replace(/\s+/g, ' ').trim());
      if (!match) throw new Error(`${file}: not an index definition: ${statement}`);
      return { name: match[1]!, table: match[2]!, definition: match[3]! };
    }),
  );
}

/** An optional index the database lacks (or holds invalid, as an interrupted `lqs indexes` leaves it), with the pages it slows. */
export interface MissingIndex {
  name: string;
  table: string;
  slows: string;
}

/**
 * The optional indexes the database lacks or holds invalid: read from the catalog (no table is
 * read, any role may ask), in the order of the migrations.
 */
export async function findMissingOptionalIndexes(db: Queryable): Promise<MissingIndex[]> {
  const indexes = optionalIndexes();
  const rows = await db.query<{ name: string }>(
    `select n.name from unnest($1::text[]) as n(name)
      where not exists (select from pg_catalog.pg_index i where i.indexrelid = to_regclass(n.name) and i.indisvalid)`,
    [indexes.map((i) => i.name)],
  );
  const missing = new Set(rows.map((r) => r.name));
  return indexes
    .filter((i) => missing.has(i.name))
    .map((i) => ({ name: i.name, table: i.table, slows: PAGES_SLOWED_WITHOUT[i.name] ?? 'account pages' }));
}

/** What `addOptionalIndexes` did with each index: `added`, `present` or `rebuilt` (it was left invalid). */
export type IndexOutcome = { name: string; table: string; outcome: 'added' | 'present' | 'rebuilt' };

interface IndexState {
  valid: boolean | null;
}

async function indexState(db: Db, name: string): Promise<IndexState> {
  const rows = await db.query<{ valid: boolean }>(
    `select i.indisvalid as valid from pg_catalog.pg_index i where i.indexrelid = to_regclass($1)`,
    [name],
  );
  return { valid: rows[0]?.valid ?? null };
}

/** The partitions of `table`, none when it is a plain table. */
async function partitionsOf(db: Db, table: string): Promise<string[]> {
  const rows = await db.query<{ partition: string }>(
    `select c.relname::text as partition from pg_catalog.pg_inherits i join pg_catalog.pg_class c on c.oid = i.inhrelid
      where i.inhparent = to_regclass($1) order by 1`,
    [table],
  );
  return rows.map((r) => r.partition);
}

/** The name of an index's part on a partition (`token_balance_p2020_01` → `<index>_p2020_01`), within 63 bytes. */
function partitionIndexName(index: string, table: string, partition: string): string {
  const suffix = partition.startsWith(table + '_') ? partition.slice(table.length + 1) : partition;
  return `${index.slice(0, 62 - suffix.length)}_${suffix}`;
}

async function buildConcurrently(db: Db, name: string, table: string, definition: string): Promise<'added' | 'present' | 'rebuilt'> {
  const state = await indexState(db, name);
  if (state.valid === true) return 'present';
  if (state.valid === false) await db.exec(`drop index concurrently if exists ${name}`);
  await db.exec(`create index concurrently if not exists ${name} on ${table} ${definition}`);
  return state.valid === false ? 'rebuilt' : 'added';
}

async function attached(db: Db, parentIndex: string, childIndex: string): Promise<boolean> {
  const rows = await db.query(`select 1 from pg_catalog.pg_inherits where inhparent = to_regclass($1) and inhrelid = to_regclass($2)`, [
    parentIndex,
    childIndex,
  ]);
  return rows.length > 0;
}

/** What to do when `role` may not create the indexes (only a table's owner may): the owner runs the command. */
export function indexesNeedOwner(role: string, reason: string): string {
  return `the role ${role} may not add indexes (${reason}): only the tables' owner may; ask the owner of the mirror node database (its own migrations' role, mirror_node by default) to run \`lqs indexes\` with DATABASE_URL naming that role, then serve as ${role} with \`serve --no-migrate\``;
}

export async function addOptionalIndexes(db: Db, report: (outcome: IndexOutcome) => void = () => undefined): Promise<IndexOutcome[]> {
  const outcomes: IndexOutcome[] = [];
  for (const index of optionalIndexes()) {
    const partitions = await partitionsOf(db, index.table);
    let outcome: IndexOutcome['outcome'];
    if (partitions.length === 0) {
      outcome = await buildConcurrently(db, index.name, index.table, index.definition);
    } else {
      const before = await indexState(db, index.name);
      // the parent's index stays invalid until every partition's is attached
      await db.exec(`create index if not exists ${index.name} on only ${index.table} ${index.definition}`);
      for (const partition of partitions) {
        const child = partitionIndexName(index.name, index.table, partition);
        await buildConcurrently(db, child, partition, index.definition);
        if (!(await attached(db, index.name, child))) await db.exec(`alter index ${index.name} attach partition ${child}`);
      }
      outcome = before.valid === true ? 'present' : before.valid === false ? 'rebuilt' : 'added';
    }
    const result = { name: index.name, table: index.table, outcome };
    report(result);
    outcomes.push(result);
  }
  return outcomes;
}
