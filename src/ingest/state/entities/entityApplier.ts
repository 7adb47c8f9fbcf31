/**
 * The entity applier: `entity` and `entity_history` from each accepted file. The file's changes are
 * merged in memory in consensus order (entityVersion.ts). The entities the file makes new versions
 * of (creations, updates, deletions: few) have their stored rows read in one statement and their
 * history and current rows written in one statement each (entityRows.ts); the many it changes only
 * in balance, ethereum nonce or stake period start get one update statement that folds the changes
 * into the stored rows in the database. A file costs at most four statements however many
 * transactions it holds.
 */
import type { Queryable } from '../../../db/db.js';
import type { ColumnValues } from '../../../ledgerSetup/insert.js';
import { arrayLiteral, columnInsert } from '../../writers/columnInsert.js';
import type { AcceptedFile } from '../../writers/recordFileWriter.js';
import type { StateApplier } from '../appliers.js';
import { type BalanceUpdate, balanceUpdate, type EntityRow, type EntityWrites, entityRows } from './entityRows.js';
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

/**
 * The changes without history, folded into their stored rows with the importer's rules (entityRows.ts
 * `coalesced`): the balance adds up for accounts and contracts (from 0) and for other types that have
 * one; the ethereum nonce defaults to 0 for accounts; ids the table does not hold are left out.
 */
const UPDATE_BALANCES = `update entity e set
    balance = case when e.type in ('ACCOUNT', 'CONTRACT') then coalesce(e.balance, 0) + coalesce(u.delta, 0)
                   when e.balance is not null then e.balance + coalesce(u.delta, 0) end,
    balance_timestamp = coalesce(u.balance_timestamp, e.balance_timestamp),
    ethereum_nonce = case when e.type = 'ACCOUNT' then coalesce(u.ethereum_nonce, e.ethereum_nonce, 0)
                          else coalesce(u.ethereum_nonce, e.ethereum_nonce) end,
    stake_period_start = coalesce(u.stake_period_start, e.stake_period_start, -1)
  from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])
    as u(id, delta, balance_timestamp, ethereum_nonce, stake_period_start)
  where e.id = u.id`;

async function updateBalances(tx: Queryable, updates: BalanceUpdate[]): Promise<void> {
  const columns = ['id', 'delta', 'balance_timestamp', 'ethereum_nonce', 'stake_period_start'] as const;
  await tx.query(
    UPDATE_BALANCES,
    columns.map((c) => arrayLiteral(updates.map((u) => u[c]))),
  );
}

/** The rows as the column insert takes them (their keys are the table's columns). */
function columnValues(rows: EntityRow[]): ColumnValues[] {
  return rows as unknown as ColumnValues[];
}

export const applyEntities: StateApplier = async (tx, accepted) => {
  const changes = fileEntityChanges(accepted);
  const versioned: bigint[] = [];
  const updates: BalanceUpdate[] = [];
  for (const [id, versions] of changes.versions) {
    if (versions[0]!.range === null) updates.push(balanceUpdate(versions[0]!));
    else versioned.push(id);
  }
  if (versioned.length > 0) {
    const stored = await storedRows(tx, versioned);
    const writes: EntityWrites = { history: [], current: [] };
    for (const id of versioned) entityRows(changes.versions.get(id)!, stored.get(id), writes);
    if (writes.history.length > 0) {
      const { text, params } = columnInsert('entity_history', COLUMN_TYPES, columnValues(writes.history));
      await tx.query(text, params);
    }
    if (writes.current.length > 0) {
      const { text, params } = columnInsert('entity', COLUMN_TYPES, columnValues(writes.current));
      await tx.query(`${text} on conflict (id) do update set ${UPDATE_LIST}`, params);
    }
  }
  if (updates.length > 0) await updateBalances(tx, updates);
};
