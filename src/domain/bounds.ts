/** Range filters (`gt`, `gte`, `lt`, `lte`) folded into the tightest inclusive bounds. */

export interface InclusiveRange {
  /** inclusive lower bound (a gt value +1), null when no gt/gte filter */
  lower: bigint | null;
  /** inclusive upper bound (an lt value -1), null when no lt/lte filter */
  upper: bigint | null;
}

/** The tightest inclusive bounds of the range filters among `filters`; other operators are ignored. */
export function tightestBounds(filters: Iterable<{ operator: string; value: bigint }>): InclusiveRange {
  let lower: bigint | null = null;
  let upper: bigint | null = null;
  for (const { operator, value } of filters) {
    if (operator === 'gt' || operator === 'gte') {
      const bound = operator === 'gt' ? value + 1n : value;
      if (lower === null || bound > lower) lower = bound;
    } else if (operator === 'lt' || operator === 'lte') {
      const bound = operator === 'lt' ? value - 1n : value;
      if (upper === null || bound < upper) upper = bound;
    }
  }
  return { lower, upper };
}
