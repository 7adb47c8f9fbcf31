/**
 * SQL of the account itself: the entity version with its staking row, and its hbar and token
 * balances, current or as of a timestamp range. Every lookup is keyed by the account id (primary
 * keys and the history tables' (id, lower(timestamp_range)) indexes).
 */
import type { Queryable } from '../../db/db.js';
import { SqlParams, versionConditions } from './sqlParams.js';
import type { SnapshotWindow, TimestampRange } from './timestampRange.js';

export interface AccountRow {
  alias: Uint8Array | null;
  auto_renew_period: bigint | null;
  balance: bigint | null;
  balance_timestamp: bigint | null;
  created_timestamp: bigint | null;
  decline_reward: boolean;
  delegation_address: Uint8Array | null;
  deleted: boolean | null;
  ethereum_nonce: bigint | null;
  evm_address: Uint8Array | null;
  expiration_timestamp: bigint | null;
  id: bigint;
  key: Uint8Array | null;
  max_automatic_token_associations: number | null;
  memo: string;
  receiver_sig_required: boolean | null;
  staked_account_id: bigint | null;
  staked_node_id: bigint | null;
  stake_period_start: bigint | null;
  /** from the staking row; null when the account has none */
  pending_reward: bigint | null;
  end_stake_period: bigint | null;
}

export interface TokenBalanceRow {
  token_id: bigint;
  balance: bigint;
}

const ENTITY_COLUMNS = `alias, auto_renew_period, balance, balance_timestamp, created_timestamp, decline_reward,
  delegation_address, deleted, ethereum_nonce, evm_address, expiration_timestamp, id, key,
  max_automatic_token_associations, memo, receiver_sig_required, staked_account_id, staked_node_id,
  stake_period_start, timestamp_range`;

/** Accounts and contracts, except the treasury row the importer creates for itself. */
const IS_ACCOUNT = `type in ('ACCOUNT', 'CONTRACT') and not (num = 2 and memo = 'Mirror node created synthetic treasury account')`;

/** The current version of the account with its current staking row. */
export async function findCurrentAccount(db: Queryable, id: bigint): Promise<AccountRow | undefined> {
  const rows = await db.query<AccountRow>(
    `select e.*, es.pending_reward, es.end_stake_period
     from (select ${ENTITY_COLUMNS} from entity where id = $1 and ${IS_ACCOUNT}) e
     left join entity_stake es on es.id = $1`,
    [id],
  );
  return rows[0];
}

/** The latest entity version (entity ∪ entity_history) valid in the range, with the staking version valid in it. */
export async function findAccountVersion(db: Queryable, id: bigint, range: TimestampRange): Promise<AccountRow | undefined> {
  const params = new SqlParams();
  const idParam = params.add(id);
  const entityWhere = [`id = ${idParam}`, IS_ACCOUNT, ...versionConditions('timestamp_range', range, params)].join(' and ');
  const stakeWhere = [`id = ${idParam}`, ...versionConditions('timestamp_range', range, params)].join(' and ');
  const rows = await db.query<AccountRow>(
    `select e.*, es.pending_reward, es.end_stake_period
     from (
       (select ${ENTITY_COLUMNS} from entity where ${entityWhere})
       union all
       (select ${ENTITY_COLUMNS} from entity_history where ${entityWhere})
       order by timestamp_range desc
       limit 1
     ) e
     left join (
       (select pending_reward, end_stake_period, timestamp_range from entity_stake where ${stakeWhere})
       union all
       (select pending_reward, end_stake_period, timestamp_range from entity_stake_history where ${stakeWhere})
       order by timestamp_range desc
       limit 1
     ) es on true`,
    params.values,
  );
  return rows[0];
}

/** Associated tokens of the account in token id order (the current token balances). */
export async function findCurrentTokenBalances(db: Queryable, id: bigint, limit: number): Promise<TokenBalanceRow[]> {
  return db.query<TokenBalanceRow>(
    'select token_id, balance from token_account where account_id = $1 and associated is true order by token_id limit $2',
    [id, limit],
  );
}

/** The latest balance snapshot in the window: a time at which the treasury has a row. */
export async function findSnapshotTimestamp(db: Queryable, treasury: bigint, window: SnapshotWindow): Promise<bigint | undefined> {
  const params = new SqlParams();
  const conditions = [
    `account_id = ${params.add(treasury)}`,
    `consensus_timestamp >= ${params.add(window.lower)}`,
    `consensus_timestamp <= ${params.add(window.upper)}`,
  ];
  if (window.ne.length > 0) conditions.push(`consensus_timestamp <> all (${params.add(window.ne)}::bigint[])`);
  const rows = await db.query<{ consensus_timestamp: bigint }>(
    `select consensus_timestamp from account_balance where ${conditions.join(' and ')}
     order by consensus_timestamp desc limit 1`,
    params.values,
  );
  return rows[0]?.consensus_timestamp;
}

/** The account's latest hbar balance in [from, to]; 0 when it has no row there. */
export async function findBalanceBetween(db: Queryable, id: bigint, from: bigint, to: bigint): Promise<bigint> {
  const rows = await db.query<{ balance: bigint }>(
    `select balance from account_balance
     where account_id = $1 and consensus_timestamp >= $2 and consensus_timestamp <= $3
     order by consensus_timestamp desc limit 1`,
    [id, from, to],
  );
  return rows[0]?.balance ?? 0n;
}

/** Per token, the account's latest token balance in [from, to], in token id order. */
export async function findTokenBalancesBetween(db: Queryable, id: bigint, from: bigint, to: bigint, limit: number): Promise<TokenBalanceRow[]> {
  return db.query<TokenBalanceRow>(
    `select distinct on (token_id) token_id, balance from token_balance
     where account_id = $1 and consensus_timestamp >= $2 and consensus_timestamp <= $3
     order by token_id, consensus_timestamp desc
     limit $4`,
    [id, from, to, limit],
  );
}
