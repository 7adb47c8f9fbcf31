/** Stream file names: the consensus start time with `:` replaced by `_` (`2022-07-13T08_46_08.041986003Z.rcd.gz`). */
import { StreamFileError } from './streamError.js';

const NAME_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2})_(\d{2})_(\d{2})(?:\.(\d{1,9}))?Z/;

/** The time a stream file's name gives, as int64 nanoseconds since the epoch. */
export function fileNameNanos(name: string): bigint {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const m = NAME_TIME.exec(base);
  const millis = m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) : Number.NaN;
  if (!m || Number.isNaN(millis)) throw new StreamFileError(name, 'the file name does not start with a stream time');
  return BigInt(millis) * 1_000_000n + BigInt((m[5] ?? '').padEnd(9, '0'));
}

/** A time as stream names write it: ISO-8601 like Java's Instant (fraction in groups of 3 digits, none when 0), `:` as `_`. */
export function nanosToFileTime(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  let fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
  while (fraction.endsWith('000')) fraction = fraction.slice(0, -3);
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replaceAll(':', '_');
  return fraction === '' ? `${iso}Z` : `${iso}.${fraction}Z`;
}
