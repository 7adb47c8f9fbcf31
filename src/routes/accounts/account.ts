/** The account's state: current, or as of a timestamp range with the balance snapshot of that time. */
import type { Queryable } from '../../db/db.js';
import { monthStartNs } from '../../domain/timestamp.js';
import {
  findAccountVersion,
  findBalanceBetween,
  findCurrentAccount,
  findCurrentTokenBalances,
  findSnapshotTimestamp,
  findTokenBalancesBetween,
  type AccountRow,
} from './queries.js';
import { snapshotWindow, type SnapshotWindow, type TimestampRange } from './timestampRange.js';
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

/** Balances of the latest snapshot in the window, read from the start of that snapshot's month. */
async function snapshotBalance(db: Queryable, id: bigint, window: SnapshotWindow, options: AccountStateOptions): Promise<AccountBalance | null> {
  const snapshot = await findSnapshotTimestamp(db, options.treasury, window);
  if (snapshot === undefined) return null;
  const from = monthStartNs(snapshot);
  const [balance, tokens] = await Promise.all([
    findBalanceBetween(db, id, from, snapshot),
    findTokenBalancesBetween(db, id, from, snapshot, options.tokenBalanceLimit),
  ]);
  return { balance, timestampNs: snapshot, tokens };
}

/**
 * The account now (no range) or as of the range; null when no account version matches. Without a
 * snapshot in the window the version's own balance columns are shown, with no token balances.
 */
export async function loadAccountState(db: Queryable, id: bigint, range: TimestampRange | null, options: AccountStateOptions): Promise<AccountState | null> {
  if (range === null) {
    const [row, tokens] = await Promise.all([findCurrentAccount(db, id), findCurrentTokenBalances(db, id, options.tokenBalanceLimit)]);
    return row ? { row, balance: { balance: row.balance, timestampNs: row.balance_timestamp, tokens } } : null;
  }
  const window = snapshotWindow(range, options.nowNs);
  const [row, snapshot] = await Promise.all([findAccountVersion(db, id, range), window ? snapshotBalance(db, id, window, options) : null]);
  if (!row) return null;
  return { row, balance: snapshot ?? { balance: row.balance, timestampNs: row.balance_timestamp, tokens: [] } };
}
