/** Percentiles and medians, on plain arrays of numbers. */

/** The p-th percentile (0–100) by nearest rank of an ascending-sorted array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  // the epsilon keeps float error (0.999 * 1000 = 999.0000000000001) from skipping a rank
  const rank = Math.ceil((p / 100) * sorted.length - 1e-9);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** Adds up counters keyed by name. */
export function sumCounts(all: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of all) for (const [k, v] of Object.entries(counts)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** The responses with a 5xx status among counts keyed by status code. */
export function serverErrorCount(statuses: Record<string, number>): number {
  return Object.entries(statuses).reduce((n, [code, k]) => (code.startsWith('5') ? n + k : n), 0);
}
