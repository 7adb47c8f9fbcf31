/** The `transactions` page of the account route: timestamp bounds, the page with its transfers, rendered. */
import type { Db } from '../../db/db.js';
import type { Order } from '../../http/params.js';
import { int64Values, sqlLower, sqlUpper, type TimestampRange } from './timestampRange.js';
import { findUntypedPage, type PageBounds, type TimestampPredicate, type TypeFilter } from './transactionQueries.js';
import { MAX_INT64, MIN_INT64 } from '../../domain/timestamp.js';
import { findTypedPage } from './typedPage.js';
import { transactionView, type TransactionView } from './transactionView.js';

/** The page predicate; null when no transaction can match (an eq value no bigint can hold). */
export function timestampPredicate(range: TimestampRange): TimestampPredicate | null {
  const eq = int64Values(range.eq);
  if (range.eq.length > 0 && eq.length === 0) return null;
  return { lower: sqlLower(range.lower), upper: sqlUpper(range.upper), eq: eq[0] ?? null, ne: int64Values(range.ne) };
}

/** The predicate as inclusive bounds (an eq value is both); null when they leave nothing. */
function boundsOf(p: TimestampPredicate): PageBounds | null {
  let lo = p.lower ?? MIN_INT64;
  let hi = p.upper ?? MAX_INT64;
  if (p.eq !== null) {
    if (p.eq > lo) lo = p.eq;
    if (p.eq < hi) hi = p.eq;
  }
  return lo <= hi ? { lo, hi, ne: p.ne } : null;
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

/** The page of transactions with their hbar, token and staking reward transfers. */
export async function loadTransactionPage(db: Db, request: TransactionPageRequest): Promise<TransactionView[]> {
  const bounds = boundsOf(request.timestamps);
  if (bounds === null) return [];
  const query = { ...request, bounds };
  const rows = request.types === null ? await findUntypedPage(db, query) : await findTypedPage(db, query, request.types);
  return rows.map(transactionView);
}
