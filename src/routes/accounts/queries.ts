/**
 * SQL of the account itself: the entity version with its staking row, and its hbar and token
 * balances, current or as of a timestamp range, each in one statement. Every lookup is keyed by the
 * account id (primary keys and the history tables' (id, lower(timestamp_range)) indexes).
 */
import type { Queryable } from '../../db/db.js';
import { arraysOf, SqlParams, statementShape } from '../../db/statements.js';
import { accountIdSql, type AccountRef } from '../accountRef.js';
import { versionConditions } from './versionConditions.js';
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

const ENTITY_COLUMNS = `alias, auto_renew_period, balance, balance_timestamp, created_timestamp, decline_reward,
  delegation_address, deleted, ethereum_nonce, evm_address, expiration_timestamp, id, key,
  max_automatic_token_associations, memo, receiver_sig_required, staked_account_id, staked_node_id,
  stake_period_start, timestamp_range`;

/** Accounts and contracts, except the treasury row the importer creates for itself. */
const IS_ACCOUNT = `type in ('ACCOUNT', 'CONTRACT') and not (num = 2 and memo = 'Mirror node created synthetic treasury account')`;

/** The account's row with its token balances (arrays in token id order; null when it has none). */
export interface AccountStateRow extends AccountRow {
  token_ids: bigint[] | null;
  token_balances: bigint[] | null;
}

/**
 * What a state statement returns: how many entities the path value matched (see `accountIdSql`)
 * and, when it matched one that is an account with a version in the range, its state.
 */
export interface Resolved<R> {
  matches: number;
  row: R | null;
}

/** A state statement's one row: the entity's columns are NULL when it matched no account version. */
type ResolvedRow<R extends AccountRow> = Omit<R, 'id'> & { id: bigint | null; matches: number };

function resolvedOf<R extends AccountRow>(rows: ResolvedRow<R>[]): Resolved<R> {
  const row = rows[0]!;
  return { matches: row.matches, row: row.id === null ? null : (row as unknown as R) };
}

/** Historical state: the balance snapshot found in the window (null when none) and the account's balances in it. */
export interface AccountStateAtRow extends AccountStateRow {
  snapshot_timestamp: bigint | null;
  snapshot_balance: bigint | null;
}

/** Token id and balance arrays of `rows`, a query of `token_ids` and `token_balances` (one id and balance per row) in token id order. */
const tokenArrays = (rows: string) => arraysOf(rows, ['token_ids', 'token_balances']);

/** `resolve`: the account's accountIdSql; `limit`: the placeholder of the token limit. */
const currentStateSql = statementShape(
  (resolve: string, limit: string) => `select r.matches, e.*, es.pending_reward, es.end_stake_period, tb.token_ids, tb.token_balances
  from (${resolve}) r
  left join lateral (select ${ENTITY_COLUMNS} from entity where id = r.id and ${IS_ACCOUNT}) e on true
  left join entity_stake es on es.id = e.id
  left join lateral (${tokenArrays(`select token_id as token_ids, balance as token_balances from token_account where account_id = e.id and associated is true order by token_id limit ${limit}`)}) tb on true`,
);

/** The current version of the account with its current staking row and its associated tokens' balances. */
export async function findCurrentAccountState(db: Queryable, ref: AccountRef, tokenLimit: number): Promise<Resolved<AccountStateRow>> {
  const params = new SqlParams();
  const resolve = accountIdSql(ref, params);
  const limit = params.add(tokenLimit);
  return resolvedOf(await db.query<ResolvedRow<AccountStateRow>>(currentStateSql(resolve, limit), params.values));
}

/**
 * The latest version in a history table valid in the range, found by walking its
 * `(id, lower(timestamp_range))` index backwards from the newest version and stopping at the first
 * that qualifies: ordering by the range itself reads and sorts every version of a busy account.
 * Versions start where the previous one ended, so their lower
 * bounds are distinct and always present (`[from, to)`). The current table has one row per id.
 */
const LATEST_VERSION = 'order by lower(timestamp_range) desc limit 1';

/** The first instant (UTC) of the month of a nanosecond timestamp, as nanoseconds. */
const monthStartOf = (ns: string) =>
  `(extract(epoch from date_trunc('month', to_timestamp((${ns} / 1000000)::float8 / 1000) at time zone 'UTC')) * 1000000000)::bigint`;

/**
 * As of the range: the latest entity version (entity ∪ entity_history) valid in it with the staking
 * version valid in it, and, when a snapshot window is given, the latest balance snapshot in the
 * window (a time at which the treasury has a row) with the account's latest hbar balance and per
 * token balance from the start of that snapshot's month up to it. Each latest row is a max()
 * grouped by its key (the balance is the second element of the greatest [timestamp, balance] pair,
 * timestamps being distinct per account and token): on the partitioned balance tables of a mirror
 * node database, `order by … limit 1` lets prepared plans sort the rows of every partition (empty
 * ones scanned sequentially look cheapest) instead of reading one partition's index in order. The
 * hbar balance comes out of that aggregate rather than a second lookup by (account, timestamp):
 * planned as a join, the lookup read every snapshot row the account has in any month (a merge or
 * hash join, 24–65 ms for 60,000 rows), and as a subquery its estimate took the statement past
 * `jit_above_cost` (about a second of JIT compilation).
 */
export async function findAccountStateAt(
  db: Queryable,
  ref: AccountRef,
  range: TimestampRange,
  snapshot: { treasury: bigint; window: SnapshotWindow } | null,
  tokenLimit: number,
): Promise<Resolved<AccountStateAtRow>> {
  const params = new SqlParams();
  const resolve = accountIdSql(ref, params);
  const entityWhere = ['id = r.id', IS_ACCOUNT, ...versionConditions('timestamp_range', range, params)].join(' and ');
  const stakeWhere = ['id = r.id', ...versionConditions('timestamp_range', range, params)].join(' and ');
  const limit = params.add(tokenLimit);
  const snapshotSql = snapshot
    ? snapshotTimestampSql(snapshot.treasury, snapshot.window, params)
    : 'select null::bigint as consensus_timestamp';
  const rows = await db.query<ResolvedRow<AccountStateAtRow>>(
    stateAtSql({ resolve, entityWhere, stakeWhere, snapshot: snapshotSql, limit }),
    params.values,
  );
  return resolvedOf(rows);
}

/** The statement of findAccountStateAt from its parts (SQL fragments and placeholders, no values). */
const stateAtSql = statementShape(
  ({
    resolve,
    entityWhere,
    stakeWhere,
    snapshot,
    limit,
  }: {
    resolve: string;
    entityWhere: string;
    stakeWhere: string;
    snapshot: string;
    limit: string;
  }) => {
    const from = monthStartOf('s.consensus_timestamp');
    return `select r.matches, e.*, es.pending_reward, es.end_stake_period, s.consensus_timestamp as snapshot_timestamp, b.balance as snapshot_balance,
       tb.token_ids, tb.token_balances
     from (${resolve}) r
     left join lateral (
       (select ${ENTITY_COLUMNS} from entity where ${entityWhere})
       union all
       (select ${ENTITY_COLUMNS} from entity_history where ${entityWhere} ${LATEST_VERSION})
       order by timestamp_range desc
       limit 1
     ) e on true
     left join lateral (
       (select pending_reward, end_stake_period, timestamp_range from entity_stake where ${stakeWhere})
       union all
       (select pending_reward, end_stake_period, timestamp_range from entity_stake_history where ${stakeWhere} ${LATEST_VERSION})
       order by timestamp_range desc
       limit 1
     ) es on true
     left join (${snapshot}) s on true
     left join lateral (
       select (max(array[consensus_timestamp::bigint, balance::bigint]))[2] as balance from account_balance
       where account_id = r.id and consensus_timestamp >= ${from} and consensus_timestamp <= s.consensus_timestamp
       group by account_id
     ) b on true
     left join lateral (${tokenArrays(`select token_id as token_ids, (max(array[consensus_timestamp::bigint, balance::bigint]))[2] as token_balances
       from token_balance
       where account_id = r.id and consensus_timestamp >= ${from} and consensus_timestamp <= s.consensus_timestamp
       group by token_id order by token_id limit ${limit}`)}) tb on true`;
  },
);

/** The latest balance snapshot in the window: a time at which the treasury has a row. */
function snapshotTimestampSql(treasury: bigint, window: SnapshotWindow, params: SqlParams): string {
  const conditions = [
    `account_id = ${params.add(treasury)}`,
    `consensus_timestamp >= ${params.add(window.lower)}`,
    `consensus_timestamp <= ${params.add(window.upper)}`,
  ];
  if (window.ne.length > 0) conditions.push(`consensus_timestamp <> all (${params.add(window.ne)}::bigint[])`);
  return `select max(consensus_timestamp) as consensus_timestamp from account_balance where ${conditions.join(' and ')}
       group by account_id`;
}
