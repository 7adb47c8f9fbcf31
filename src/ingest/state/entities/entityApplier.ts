/**
 * The entity applier: `entity` and `entity_history` from each accepted file. The file's changes are
 * merged in memory in consensus order (entityVersion.ts), the stored rows of every entity they touch
 * read in one statement, and the resulting history rows and current rows written in one statement
 * each (entityRows.ts), so that a file costs three statements however many transactions it holds.
 */
import type { Queryable } from '../../../db/db.js';
import type { ColumnValues } from '../../../ledgerSetup/insert.js';
import { arrayLiteral, columnInsert } from '../../writers/columnInsert.js';
import type { AcceptedFile } from '../../writers/recordFileWriter.js';
import type { StateApplier } from '../appliers.js';
import { type EntityRow, type EntityWrites, entityRows } from './entityRows.js';
import { EntityChanges } from './entityVersion.js';
import { addTransactionEntities } from './transactionEntities.js';

/** The column types of `entity` and `entity_history` (the same columns), for the array parameters. */
const COLUMN_TYPES = new Map<string, string>([
  ['id', 'bigint'],
  ['shard', 'bigint'],
  ['realm', 'bigint'],
  ['num', 'bigint'],
  ['timestamp_range', 'int8range'],
  ['alias', 'bytea'],
  ['auto_renew_account_id', 'bigint'],
  ['auto_renew_period', 'bigint'],
  ['balance', 'bigint'],
  ['balance_timestamp', 'bigint'],
  ['created_timestamp', 'bigint'],
  ['decline_reward', 'boolean'],
  ['deleted', 'boolean'],
  ['delegation_address', 'bytea'],
  ['ethereum_nonce', 'bigint'],
  ['evm_address', 'bytea'],
  ['expiration_timestamp', 'bigint'],
  ['key', 'bytea'],
  ['max_automatic_token_associations', 'integer'],
  ['memo', 'text'],
  ['obtainer_id', 'bigint'],
  ['permanent_removal', 'boolean'],
  ['proxy_account_id', 'bigint'],
  ['public_key', 'character varying'],
  ['receiver_sig_required', 'boolean'],
  ['stake_period_start', 'bigint'],
  ['staked_account_id', 'bigint'],
  ['staked_node_id', 'bigint'],
  ['type', 'entity_type'],
]);
const COLUMNS = [...COLUMN_TYPES.keys()];
const SELECT_LIST = COLUMNS.map((c) => (c === 'timestamp_range' ? 'timestamp_range::text as timestamp_range' : `"${c}"`)).join(', ');
const UPDATE_LIST = COLUMNS.filter((c) => c !== 'id')
  .map((c) => `"${c}" = excluded."${c}"`)
  .join(', ');

/** The merged changes of a file's transactions, in consensus order. */
export function fileEntityChanges(accepted: AcceptedFile): EntityChanges {
  const changes = new EntityChanges();
  const ctx = { hapi: accepted.file.hapiVersion };
  for (const d of accepted.rows.decoded) addTransactionEntities(changes, d, ctx);
  return changes;
}

async function storedRows(tx: Queryable, ids: bigint[]): Promise<Map<bigint, EntityRow>> {
  const rows = await tx.query<EntityRow>(`select ${SELECT_LIST} from entity where id = any($1::bigint[])`, [`{${ids.join(',')}}`]);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        ...r,
        alias: r.alias && Buffer.from(r.alias),
        delegation_address: r.delegation_address && Buffer.from(r.delegation_address),
        evm_address: r.evm_address && Buffer.from(r.evm_address),
        key: r.key && Buffer.from(r.key),
      },
    ]),
  );
}

/** The attributes a change without history may set: a stored row's balance-only update writes just these. */
const BALANCE_COLUMNS = ['balance', 'balance_timestamp', 'ethereum_nonce', 'stake_period_start'] as const;
const UPDATE_BALANCES = `update entity e set ${BALANCE_COLUMNS.map((c) => `${c} = u.${c}`).join(', ')}
  from unnest($1::bigint[], ${BALANCE_COLUMNS.map((_, i) => `$${i + 2}::bigint[]`).join(', ')}) as u(id, ${BALANCE_COLUMNS.join(', ')})
  where e.id = u.id`;

/** The rows as the column insert takes them (their keys are the table's columns). */
function columnValues(rows: EntityRow[]): ColumnValues[] {
  return rows as unknown as ColumnValues[];
}

async function updateBalances(tx: Queryable, rows: EntityRow[]): Promise<void> {
  const params = [arrayLiteral(rows.map((r) => r.id)), ...BALANCE_COLUMNS.map((c) => arrayLiteral(rows.map((r) => r[c])))];
  await tx.query(UPDATE_BALANCES, params);
}

export const applyEntities: StateApplier = async (tx, accepted) => {
  const changes = fileEntityChanges(accepted);
  const ids = changes.ids();
  if (ids.length === 0) return;
  const stored = await storedRows(tx, ids);
  const writes: EntityWrites = { history: [], current: [], balances: [] };
  for (const id of ids) entityRows(changes.versions.get(id)!, stored.get(id), writes);
  if (writes.history.length > 0) {
    const { text, params } = columnInsert('entity_history', COLUMN_TYPES, columnValues(writes.history));
    await tx.query(text, params);
  }
  if (writes.current.length > 0) {
    const { text, params } = columnInsert('entity', COLUMN_TYPES, columnValues(writes.current));
    await tx.query(`${text} on conflict (id) do update set ${UPDATE_LIST}`, params);
  }
  if (writes.balances.length > 0) await updateBalances(tx, writes.balances);
};
