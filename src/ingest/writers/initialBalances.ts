/**
 * The starting state of the balances, as the importer's InitializeEntityBalanceMigration and its
 * token account counterpart compute it: the balance file's balances plus every transfer stored after
 * it (after its consensus time plus its errata time offset, up to the newest record file; mainnet's
 * spurious transfers left out). Accounts the ledger does not hold yet are created with that balance
 * (as accounts, valid from 0), token accounts as associated; existing rows get the balance and keep
 * their own balance timestamp when they have one.
 */
import type { Queryable } from '../../db/db.js';

const ENTITY_SQL = `
with bounds as (
  select $1::bigint as snapshot, $1::bigint + $2::bigint as from_ts,
    greatest($1::bigint, coalesce((select max(consensus_end) from record_file), 0)) as to_ts
), snapshot as (
  select account_id, balance from account_balance where consensus_timestamp = $1
), change as (
  select entity_id, sum(amount) as amount from crypto_transfer, bounds
  where consensus_timestamp > from_ts and consensus_timestamp <= to_ts and (errata is null or errata <> 'DELETE')
  group by entity_id
), state as (
  select coalesce(account_id, entity_id) as id, coalesce(balance, 0) + coalesce(amount, 0) as balance,
    case when balance is not null then false end as deleted
  from snapshot full outer join change on account_id = entity_id
)
insert into entity (balance, balance_timestamp, deleted, id, num, realm, shard, timestamp_range, type)
select s.balance, b.to_ts, s.deleted, s.id, s.id & 274877906943, (s.id >> 38) & 65535, (s.id >> 54) & 1023, '[0,)', 'ACCOUNT'
from state s, bounds b
on conflict (id) do update
set balance = excluded.balance, balance_timestamp = coalesce(entity.balance_timestamp, excluded.balance_timestamp)`;

const TOKEN_ACCOUNT_SQL = `
with bounds as (
  select $1::bigint + $2::bigint as from_ts,
    greatest($1::bigint, coalesce((select max(consensus_end) from record_file), 0)) as to_ts
), snapshot as (
  select account_id, token_id, balance from token_balance where consensus_timestamp = $1
), change as (
  select account_id, token_id, sum(amount) as amount from token_transfer, bounds
  where consensus_timestamp > from_ts and consensus_timestamp <= to_ts
  group by account_id, token_id
), state as (
  select coalesce(s.account_id, c.account_id) as account_id, coalesce(s.token_id, c.token_id) as token_id,
    coalesce(s.balance, 0) + coalesce(c.amount, 0) as balance
  from snapshot s full outer join change c on s.account_id = c.account_id and s.token_id = c.token_id
)
insert into token_account (account_id, token_id, associated, balance, balance_timestamp, timestamp_range)
select s.account_id, s.token_id, true, s.balance, b.to_ts, int8range($1::bigint, null)
from state s, bounds b
on conflict (account_id, token_id) do update
set balance = excluded.balance, balance_timestamp = coalesce(token_account.balance_timestamp, excluded.balance_timestamp)`;

export async function initializeBalances(tx: Queryable, snapshotTimestamp: bigint, timeOffset: number): Promise<void> {
  await tx.query(ENTITY_SQL, [snapshotTimestamp, BigInt(timeOffset)]);
  await tx.query(TOKEN_ACCOUNT_SQL, [snapshotTimestamp, BigInt(timeOffset)]);
}
