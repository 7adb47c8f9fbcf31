/** The `transactions` page of the account route: timestamp and type predicates, the page, its transfers. */
import type { Queryable } from '../../db/db.js';
import type { Order } from '../../http/params.js';
import {
  findCryptoTransfers,
  findStakingRewardTransfers,
  findTokenTransfers,
  findTransactionPage,
  type CryptoTransferRow,
  type TimestampPredicate,
  type TokenTransferRow,
  type StakingRewardTransferRow,
  type TypeFilter,
} from './transactionQueries.js';
import { int64Values, sqlLower, sqlUpper, type TimestampRange } from './timestampRange.js';
import { transactionView, type TransactionView } from './transactionView.js';

/** The page predicate; null when no transaction can match (an eq value no bigint can hold). */
export function timestampPredicate(range: TimestampRange): TimestampPredicate | null {
  const eq = int64Values(range.eq);
  if (range.eq.length > 0 && eq.length === 0) return null;
  return { lower: sqlLower(range.lower), upper: sqlUpper(range.upper), eq: eq[0] ?? null, ne: int64Values(range.ne) };
}

export interface TransactionPageRequest {
  accountId: bigint;
  timestamps: TimestampPredicate;
  types: TypeFilter | null;
  precedingTypes: readonly number[];
  /** the staking reward account 0.0.800: its hbar transfers mark reward payouts */
  stakingRewardAccount: bigint;
  order: Order;
  limit: number;
}

const keyOf = (timestamp: bigint, payer: bigint) => `${timestamp}/${payer}`;

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/** The page of transactions with their hbar, token and staking reward transfers. */
export async function loadTransactionPage(db: Queryable, request: TransactionPageRequest): Promise<TransactionView[]> {
  const rows = await findTransactionPage(db, request);
  if (rows.length === 0) return [];

  const timestamps = rows.map((r) => r.consensus_timestamp);
  const payers = [...new Set(rows.map((r) => r.payer_account_id))];
  const [crypto, token, rewards] = await Promise.all([
    findCryptoTransfers(db, timestamps, payers),
    findTokenTransfers(db, timestamps, payers),
    findStakingRewardTransfers(db, timestamps),
  ]);
  const cryptoByTransaction = groupBy<CryptoTransferRow>(crypto, (t) => keyOf(t.consensus_timestamp, t.payer_account_id));
  const tokenByTransaction = groupBy<TokenTransferRow>(token, (t) => keyOf(t.consensus_timestamp, t.payer_account_id));
  const rewardsByTimestamp = groupBy<StakingRewardTransferRow>(rewards, (t) => t.consensus_timestamp.toString());

  return rows.map((row) => {
    const key = keyOf(row.consensus_timestamp, row.payer_account_id);
    const cryptoTransfers = cryptoByTransaction.get(key) ?? [];
    // rewards are listed only for transactions paying out of the staking reward account
    const paysRewards = cryptoTransfers.some((t) => t.entity_id === request.stakingRewardAccount);
    return transactionView(row, {
      crypto: cryptoTransfers,
      token: tokenByTransaction.get(key) ?? [],
      stakingRewards: paysRewards ? (rewardsByTimestamp.get(row.consensus_timestamp.toString()) ?? []) : [],
    });
  });
}
