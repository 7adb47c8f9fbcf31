/** Conditions selecting the entity versions valid in a timestamp range. */
import type { SqlParams } from '../../db/statements.js';
import { MAX_INT64 } from '../../domain/timestamp.js';
import { int64Values, type TimestampRange } from './timestampRange.js';

/** int8range text `[lower, upper]` (inclusive, null = unbounded) that never overflows int64. */
function int8rangeText(lower: bigint | null, upper: bigint | null): string {
  const from = lower === null ? '' : (lower > MAX_INT64 ? MAX_INT64 : lower).toString();
  const to = upper === null || upper >= MAX_INT64 ? '' : (upper + 1n).toString();
  return `[${from},${to})`;
}

/**
 * Conditions on a `timestamp_range` column selecting the versions valid in the folded range: it
 * overlaps [lower, upper], contains no ne value, and overlaps (-∞, v] for every eq value.
 */
export function versionConditions(column: string, range: TimestampRange, params: SqlParams): string[] {
  const conditions: string[] = [];
  if (range.lower !== null || range.upper !== null) {
    conditions.push(`${column} && ${params.add(int8rangeText(range.lower, range.upper))}::int8range`);
  }
  for (const ne of int64Values(range.ne)) conditions.push(`not ${column} @> ${params.add(ne)}::bigint`);
  for (const eq of range.eq) conditions.push(`${column} && ${params.add(int8rangeText(null, eq))}::int8range`);
  return conditions;
}
