/** The account's state: current, or as of a timestamp range with the balance snapshot of that time. */
import type { Queryable } from '../../db/db.js';
import { checkMatches, type AccountRef } from '../accountRef.js';
import { findAccountStateAt, findCurrentAccountState, type AccountRow } from './queries.js';
import { snapshotWindow, type TimestampRange } from './timestampRange.js';
import type { AccountBalance } from './view.js';

export interface AccountState {
  row: AccountRow;
  balance: AccountBalance;
}

export interface AccountStateOptions {
  /** the treasury 0.0.2, whose balance rows mark the balance snapshots */
  treasury: bigint;
  tokenBalanceLimit: number;
  nowNs: bigint;
}

/**
 * The account now (no range) or as of the range, resolving an EVM address or alias in the same
 * statement (with the errors of `checkMatches`); null when no account version matches. As of a
 * range, the balances are those of the latest snapshot in the window (0 and no tokens when the
 * account has no row in it); without a snapshot the version's own balance columns are shown, with
 * no token balances.
 */
export async function loadAccountState(
  db: Queryable,
  ref: AccountRef,
  range: TimestampRange | null,
  options: AccountStateOptions,
): Promise<AccountState | null> {
  if (range === null) {
    const { matches, row } = await findCurrentAccountState(db, ref, options.tokenBalanceLimit);
    checkMatches(ref, matches);
    if (!row) return null;
    return {
      row,
      balance: { balance: row.balance, timestampNs: row.balance_timestamp, tokenIds: row.token_ids, tokenBalances: row.token_balances },
    };
  }
  const window = snapshotWindow(range, options.nowNs);
  const { matches, row } = await findAccountStateAt(
    db,
    ref,
    range,
    window ? { treasury: options.treasury, window } : null,
    options.tokenBalanceLimit,
  );
  checkMatches(ref, matches);
  if (!row) return null;
  if (row.snapshot_timestamp === null)
    return { row, balance: { balance: row.balance, timestampNs: row.balance_timestamp, tokenIds: null, tokenBalances: null } };
  return {
    row,
    balance: {
      balance: row.snapshot_balance ?? 0n,
      timestampNs: row.snapshot_timestamp,
      tokenIds: row.token_ids,
      tokenBalances: row.token_balances,
    },
  };
}
