/** Consensus timestamps: int64 nanoseconds since the epoch, rendered `seconds.nnnnnnnnn`. */
export const NANOS_PER_SECOND = 1_000_000_000n;
export const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND;
export const MAX_INT64 = (1n << 63n) - 1n;
export const MIN_INT64 = -MAX_INT64 - 1n;

export function formatTimestamp(ns: bigint | null | undefined): string | null {
  if (ns === null || ns === undefined) return null;
  const negative = ns < 0n;
  const digits = (negative ? -ns : ns).toString();
  const seconds = digits.length > 9 ? digits.slice(0, -9) : '0';
  const nanos = digits.slice(-9).padStart(9, '0');
  return `${negative ? '-' : ''}${seconds}.${nanos}`;
}

/**
 * A nanosecond value limited to int64: 10-digit seconds can exceed it, and no stored timestamp can,
 * so comparing with the limit instead selects the same rows.
 */
export function clampToInt64(ns: bigint): bigint {
  return ns > MAX_INT64 ? MAX_INT64 : ns;
}

const TIMESTAMP = /^(\d{1,10})(?:\.(\d{1,9}))?$/;

/** Parses `seconds[.fraction]` (1–10 second digits, 1–9 fraction digits) into nanoseconds. */
export function parseTimestamp(text: string): bigint | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  return BigInt(m[1]!) * NANOS_PER_SECOND + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** Renders a staking period (a day number since the epoch) as the timestamp of its start. */
export function formatStakingPeriod(day: bigint): string | null {
  return formatTimestamp(day * NANOS_PER_DAY);
}

/** First instant (UTC) of the calendar month containing `ns`, shifted by `monthOffset` months. */
export function monthStartNs(ns: bigint, monthOffset = 0): bigint {
  const ms = Number(ns / 1_000_000n);
  const d = new Date(ms);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + monthOffset, 1);
  return BigInt(start) * 1_000_000n;
}
