/**
 * The `timestamp` filters of the account route folded the way the reference folds them (no strict
 * checks): distinct eq and ne values, the tightest inclusive lower and upper bounds; and what the
 * account's state (the snapshot window) and its transaction page (the bound range, the page's
 * bounds) make of that range.
 */
import type { Operator } from '../../http/filters.js';
import type { Order } from '../../http/params.js';
import { tightestBounds } from '../../domain/bounds.js';
import { MAX_INT64, MIN_INT64, formatTimestamp, monthStartNs } from '../../domain/timestamp.js';

export interface TimestampRange {
  /** inclusive lower bound (gt values already +1), null when no gt/gte filter */
  lower: bigint | null;
  /** inclusive upper bound (lt values already -1), null when no lt/lte filter */
  upper: bigint | null;
  eq: bigint[];
  ne: bigint[];
}

export function foldTimestampFilters(filters: readonly { operator: Operator; value: bigint }[]): TimestampRange {
  const valuesOf = (operator: Operator) => [...new Set(filters.filter((f) => f.operator === operator).map((f) => f.value))];
  return { ...tightestBounds(filters), eq: valuesOf('eq'), ne: valuesOf('ne') };
}

/** Both bounds given and the upper below the lower: the reference answers 404 `Timestamp range is empty`. */
export function isEmptyRange(range: TimestampRange): boolean {
  return range.lower !== null && range.upper !== null && range.upper < range.lower;
}

/**
 * The lower bound as the reference applies it: a bound of exactly 0 is ignored (the reference tests
 * the value's truthiness), and one beyond int64 (timestamps allow 10 second digits) is held at the
 * int64 maximum, the largest value a stored timestamp can have.
 */
export function appliedLowerBound(lower: bigint | null): bigint | null {
  if (lower === null || lower === 0n) return null;
  return lower > MAX_INT64 ? MAX_INT64 : lower;
}

/** The upper bound as the reference applies it: 0 is ignored, and one at or beyond the int64 maximum constrains nothing. */
export function appliedUpperBound(upper: bigint | null): bigint | null {
  if (upper === null || upper === 0n || upper >= MAX_INT64) return null;
  return upper;
}

/** Values a bigint column can hold; others can match no row. */
export function int64Values(values: readonly bigint[]): bigint[] {
  return values.filter((v) => v >= MIN_INT64 && v <= MAX_INT64);
}

/** Inclusive bounds of a consensus timestamp and the values it must not have, all within int64. */
export interface InclusiveBounds {
  lo: bigint;
  hi: bigint;
  ne: bigint[];
}

/**
 * The range (with at most one eq value) as inclusive bounds with values the database can hold, an
 * eq value narrowing both; null when no timestamp can match: an eq value no bigint can hold, or
 * bounds that leave nothing.
 */
export function inclusiveBoundsOf(range: TimestampRange): InclusiveBounds | null {
  const eq = int64Values(range.eq);
  if (range.eq.length > 0 && eq.length === 0) return null;
  let lo = appliedLowerBound(range.lower) ?? MIN_INT64;
  let hi = appliedUpperBound(range.upper) ?? MAX_INT64;
  const value = eq[0];
  if (value !== undefined) {
    if (value > lo) lo = value;
    if (value < hi) hi = value;
  }
  return lo <= hi ? { lo, hi, ne: int64Values(range.ne) } : null;
}

/** Window of the balance snapshot search: at most from the month preceding min(upper, now). */
export interface SnapshotWindow {
  lower: bigint;
  upper: bigint;
  ne: bigint[];
}

/**
 * The window searched for the balance snapshot shown as of the range, as the reference searches
 * it: eq values count as upper bounds, the lower bound is raised to the start of the month before
 * min(upper, now); null when nothing can match.
 */
export function snapshotWindow(range: TimestampRange, nowNs: bigint): SnapshotWindow | null {
  let lower = appliedLowerBound(range.lower) ?? 0n;
  let upper = appliedUpperBound(range.upper) ?? MAX_INT64;
  for (const v of range.eq) if (v < upper) upper = v;
  if (lower > upper) return null;
  const effectiveUpper = upper < nowNs ? upper : nowNs;
  const windowStart = monthStartNs(effectiveUpper, -1);
  if (windowStart > lower) lower = windowStart;
  return { lower, upper, ne: int64Values(range.ne) };
}

/** The range the transaction list covers after bindTimestampRange, and the moved bound, if any. */
export interface BoundRange {
  range: TimestampRange;
  /** the bound moved to keep the width within the limit, as the next link's anchor */
  nextTimestamp: string | null;
}

/**
 * The reference's bindTimestampRange (`query.bindTimestampRange`): a missing lower bound becomes the
 * first transaction's timestamp, a missing upper bound now; a range wider than `maxWidth` is shrunk
 * from the side away from the first page, and the moved bound is reported for the next link.
 */
export function bindTimestampRange(
  range: TimestampRange,
  order: Order,
  firstTransactionNs: bigint,
  nowNs: bigint,
  maxWidth: bigint,
): BoundRange {
  const lower = range.lower ?? firstTransactionNs;
  const upper = range.upper ?? nowNs;
  if (upper - lower + 1n <= maxWidth) return { range: { ...range, lower, upper }, nextTimestamp: null };
  if (order === 'desc') {
    const moved = upper - maxWidth + 1n;
    return { range: { ...range, lower: moved, upper }, nextTimestamp: formatTimestamp(moved) };
  }
  const moved = lower + maxWidth - 1n;
  return { range: { ...range, lower, upper: moved }, nextTimestamp: formatTimestamp(moved) };
}
