/**
 * The balance snapshots, as the importer's HistoricalBalanceService takes them: after a record file
 * whose consensus end is at least 15 minutes (its default minimum frequency) after the newest
 * `account_balance_file` (or, before any, after the first record file's end plus its 2-minute
 * initial delay), the balances at that end are copied into `account_balance` (from `entity`) and
 * `token_balance` (from `token_account`) under a synthetic `account_balance_file` row. The first
 * snapshot of a month copies every balance (a month is one partition of the reference's balance
 * tables); later ones only the balances changed since the month's previous snapshot, and always the
 * treasury 0.0.2, whose rows mark the snapshot times (the sentinel treasury account is created when
 * the ledger has none, as the importer does). `GET /api/v1/accounts/{id}?timestamp=` reads them.
 * Taken in the record file's transaction, after the other appliers; not taken when the operator
 * ingests the network's balance files instead (the importer refuses both at once).
 */
import { encodeEntityId } from '../../domain/entityId.js';
import type { Queryable } from '../../db/db.js';
import { formatNanos } from '../progressLine.js';
import type { StateApplier, StateContext } from './appliers.js';

const MINUTE_NS = 60_000_000_000n;
export const SNAPSHOT_MIN_FREQUENCY_NS = 15n * MINUTE_NS;
export const SNAPSHOT_INITIAL_DELAY_NS = 2n * MINUTE_NS;
const THIRTY_DAYS_NS = 30n * 24n * 60n * MINUTE_NS;

/** The time the next snapshot's delay runs from: the newest balance file, else the first record file's end plus the initial delay. */
async function snapshotBase(tx: Queryable): Promise<bigint | null> {
  const [row] = await tx.query<{ latest: bigint | null; first_end: bigint | null }>(
    `select (select max(consensus_timestamp) from account_balance_file) as latest,
            (select min(consensus_end) from record_file) as first_end`,
  );
  return row?.latest ?? (row?.first_end != null ? row.first_end + SNAPSHOT_INITIAL_DELAY_NS : null);
}

/**
 * The base as last read, per ingestion (its context), so that the files between two snapshots cost
 * no statement: only a snapshot moves it (ingestion is single-writer, and takes no snapshot while it
 * ingests balance files). It is dropped when a snapshot is taken and read again by the next file, so
 * that a snapshot whose transaction rolls back is taken again.
 */
const bases = new WeakMap<StateContext, bigint>();

/** The first instant of the UTC month of `ns`, and of the next month, in nanoseconds. */
function monthOf(ns: bigint): { from: bigint; to: bigint } {
  const d = new Date(Number(ns / 1_000_000n));
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { from: BigInt(from) * 1_000_000n, to: BigInt(to) * 1_000_000n };
}

const SENTINEL_TREASURY_SQL = `insert into entity (id, num, realm, shard, balance, created_timestamp, decline_reward, deleted, memo, type, timestamp_range)
  values ($1, $2, $3, $4, 0, 0, true, false, 'Mirror node created synthetic treasury account', 'ACCOUNT', '[0,)')
  on conflict (id) do nothing`;

const FULL_ACCOUNTS_SQL = `insert into account_balance (account_id, balance, consensus_timestamp)
  select id, balance, $1::bigint from entity
  where balance is not null and (deleted is not true or balance_timestamp > (
    select coalesce(max(consensus_timestamp), 0) from account_balance
    where account_id = $2 and consensus_timestamp > $1::bigint - ${THIRTY_DAYS_NS}))
  order by id`;

const CHANGED_ACCOUNTS_SQL = `insert into account_balance (account_id, balance, consensus_timestamp)
  select id, balance, $1::bigint from entity
  where id = $2::bigint or (balance is not null and balance_timestamp > $3::bigint)
  order by id`;

const FULL_TOKENS_SQL = `insert into token_balance (account_id, balance, consensus_timestamp, token_id)
  select account_id, balance, $1::bigint, token_id from token_account
  where associated is true or balance_timestamp > (
    select coalesce(max(consensus_timestamp), 0) from account_balance
    where account_id = $2 and consensus_timestamp > $1::bigint - ${THIRTY_DAYS_NS} and consensus_timestamp < $1::bigint)
  order by account_id, token_id`;

const CHANGED_TOKENS_SQL = `insert into token_balance (account_id, balance, consensus_timestamp, token_id)
  select account_id, balance, $1::bigint, token_id from token_account
  where balance_timestamp > $2::bigint
  order by account_id, token_id`;

/** Takes the snapshot at `timestamp`; returns the rows written. */
export async function takeBalanceSnapshot(
  tx: Queryable,
  timestamp: bigint,
  shardRealm: { shard: bigint; realm: bigint },
): Promise<{ accounts: number; tokens: number }> {
  const loadStart = BigInt(Math.floor(Date.now() / 1000));
  const treasury = encodeEntityId(shardRealm.shard, shardRealm.realm, 2n);
  await tx.query(SENTINEL_TREASURY_SQL, [treasury, 2n, shardRealm.realm, shardRealm.shard]);
  const month = monthOf(timestamp);
  const [previous] = await tx.query<{ max: bigint | null }>(
    'select max(consensus_timestamp) as max from account_balance where account_id = $1 and consensus_timestamp >= $2 and consensus_timestamp < $3',
    [treasury, month.from, month.to],
  );
  const since = previous?.max ?? null;
  const accounts =
    since === null
      ? await tx.query<{ account_id: bigint }>(`${FULL_ACCOUNTS_SQL} returning account_id`, [timestamp, treasury])
      : await tx.query<{ account_id: bigint }>(`${CHANGED_ACCOUNTS_SQL} returning account_id`, [timestamp, treasury, since]);
  const tokens =
    since === null
      ? await tx.query<{ account_id: bigint }>(`${FULL_TOKENS_SQL} returning account_id`, [timestamp, treasury])
      : await tx.query<{ account_id: bigint }>(`${CHANGED_TOKENS_SQL} returning account_id`, [timestamp, since]);
  const name = `${formatNanos(timestamp).replace(/:/g, '_')}_Balances.pb.gz`;
  await tx.query(
    `insert into account_balance_file (consensus_timestamp, count, load_start, load_end, file_hash, name, time_offset, synthetic)
     values ($1, $2, $3, $4, null, $5, 0, true)`,
    [timestamp, BigInt(accounts.length), loadStart, BigInt(Math.floor(Date.now() / 1000)), name],
  );
  return { accounts: accounts.length, tokens: tokens.length };
}

export const balanceSnapshotApplier: StateApplier = async (tx, accepted, context) => {
  if (context.balanceFiles) return;
  const end = accepted.file.consensusEnd;
  let since = bases.get(context) ?? null;
  if (since === null) {
    since = await snapshotBase(tx);
    if (since !== null) bases.set(context, since);
  }
  if (since === null || end - since < SNAPSHOT_MIN_FREQUENCY_NS) return;
  bases.delete(context);
  await takeBalanceSnapshot(tx, end, context.shardRealm);
};
