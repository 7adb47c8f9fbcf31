/**
 * Time in the synthetic ledger. Hot paths carry nanosecond offsets from the window start as plain
 * numbers (exact below 2^53 ns ≈ 104 days, far more than the window and the history before it)
 * and only turn them into int64 decimal text when a row is written.
 */

/** 2024-01-31T20:00:00Z: the window crosses into February at every scale from small up. */
export const WINDOW_START_SECONDS = 1_706_731_200;
export const NS_PER_SECOND = 1e9;
export const NS_PER_DAY = 86_400e9;
/** accounts, tokens and NFTs that exist when the window opens were created in the 90 days before it */
export const HISTORY_NS = 90 * NS_PER_DAY;
export const BLOCK_INTERVAL_NS = 2e9;

const WINDOW_START_NS = BigInt(WINDOW_START_SECONDS) * 1_000_000_000n;

/** int64 nanoseconds since the epoch, as decimal text, for an offset from the window start. */
export function nsText(offset: number): string {
  let seconds = Math.floor(offset / NS_PER_SECOND);
  let nanos = offset - seconds * NS_PER_SECOND;
  // the float division can round up across a second boundary; settle it exactly
  if (nanos < 0) {
    seconds -= 1;
    nanos += NS_PER_SECOND;
  } else if (nanos >= NS_PER_SECOND) {
    seconds += 1;
    nanos -= NS_PER_SECOND;
  }
  const s = WINDOW_START_SECONDS + seconds;
  return s > 0 ? `${s}${String(nanos).padStart(9, '0')}` : String(nanos);
}

/** The offset of an absolute nanosecond timestamp. */
export function offsetOf(ns: bigint): number {
  return Number(ns - WINDOW_START_NS);
}

/** Whole seconds since the epoch of an offset (record-file load times). */
export function epochSeconds(offset: number): number {
  return WINDOW_START_SECONDS + Math.floor(offset / NS_PER_SECOND);
}

/** Days since the epoch (staking periods) of an offset. */
export function epochDay(offset: number): number {
  return Math.floor(epochSeconds(offset) / 86_400);
}

/** The offset at which an epoch day starts. */
export function dayStartOffset(day: number): number {
  return (day * 86_400 - WINDOW_START_SECONDS) * NS_PER_SECOND;
}

/** Calendar month (year * 12 + month, UTC) of an offset: balance snapshots restart in each. */
export function monthOf(offset: number): number {
  const d = new Date(epochSeconds(offset) * 1000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** Record file name: `2024-01-31T20_00_00.123456789Z.rcd` from the block's first timestamp. */
export function recordFileName(offset: number): string {
  const text = nsText(offset);
  const seconds = Number(text.slice(0, -9));
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19).replace(/:/g, '_');
  return `${iso}.${text.slice(-9)}Z.rcd`;
}
