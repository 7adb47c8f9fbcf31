/**
 * The `transactions` page of the account route: the timestamp range bound and turned into the
 * page's bounds, the page with its transfers (typed or not), rendered, and where the next page
 * continues.
 */
import type { Db } from '../../../db/db.js';
import { KNOWN_TRANSACTION_TYPE_IDS } from '../../../domain/transactionTypes.js';
import type { TransactionTypeValue } from '../../../http/params.js';
import { bindTimestampRange, inclusiveBoundsOf, type BoundRange, type TimestampRange } from '../timestampRange.js';
import { findFirstTransactionTimestamp, findUntypedPage, type PageQuery, type TypeFilter } from './queries.js';
import { findTypedPage } from './typedPage.js';
import { transactionView, type TransactionView } from './view.js';

/** `transactiontype` values as the page's type filter; null when there are none. */
export function typeFilterOf(values: readonly TransactionTypeValue[]): TypeFilter | null {
  if (values.length === 0) return null;
  return {
    ids: values.filter((v): v is number => typeof v === 'number'),
    unknown: values.includes('unknown'),
    knownIds: KNOWN_TRANSACTION_TYPE_IDS,
  };
}

/** The page as the route asks for it: the query without its bounds, which come from `range`. */
export interface TransactionPageRequest extends Omit<PageQuery, 'bounds'> {
  /** the folded `timestamp` filters */
  range: TimestampRange;
  /** null without a `transactiontype` filter */
  types: TypeFilter | null;
}

/** Binding of an open range (`query.bindTimestampRange`): at most `maxWidthNs` wide, up to now. */
export interface RangeBinding {
  enabled: boolean;
  maxWidthNs: bigint;
  nowNs: () => bigint;
}

export interface TransactionPage {
  transactions: TransactionView[];
  /** the timestamp the next page continues from (its link's anchor); null when there is no next page */
  continueFrom: string | null;
}

export const NO_TRANSACTIONS: TransactionPage = { transactions: [], continueFrom: null };

/** The page of transactions with their hbar, token and staking reward transfers. */
export async function loadTransactionPage(db: Db, request: TransactionPageRequest, binding: RangeBinding): Promise<TransactionPage> {
  const { range, order, limit } = request;
  if (range.eq.length > 1) return NO_TRANSACTIONS;
  let bound: BoundRange = { range, nextTimestamp: null };
  if (range.eq.length === 0 && binding.enabled) {
    const first = range.lower === null ? await findFirstTransactionTimestamp(db) : 0n;
    bound = bindTimestampRange(range, order, first, binding.nowNs(), binding.maxWidthNs);
  }
  const bounds = inclusiveBoundsOf(bound.range);
  let transactions: TransactionView[] = [];
  if (bounds !== null) {
    const query: PageQuery = { ...request, bounds };
    const rows = request.types === null ? await findUntypedPage(db, query) : await findTypedPage(db, query, request.types);
    transactions = rows.map(transactionView);
  }
  // a full page continues after its last transaction; a bound range continues after the moved bound
  const continueFrom = transactions.length === limit ? transactions.at(-1)?.consensus_timestamp : bound.nextTimestamp;
  return { transactions, continueFrom: continueFrom ?? null };
}
