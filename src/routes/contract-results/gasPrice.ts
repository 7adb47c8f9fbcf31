/**
 * The gas price (tinybars) of a non-Ethereum contract execution, from the network's fee schedule
 * (0.0.111) and exchange rate (0.0.112) files as of its consensus timestamp, as the reference
 * computes it.
 */
import { LRUCache } from 'lru-cache';
import { decodeExchangeRateSet, decodeFeeSchedules, type ExchangeRate, type FeeSchedule } from '../../domain/protobuf.js';
import { NANOS_PER_SECOND } from '../../domain/timestamp.js';
import type { FileContent, FileVersion } from './queries.js';

const NANOS_PER_HOUR = 3600n * NANOS_PER_SECOND;
const FEE_DIVISOR = 1000n;

/** Loads the file as of the result: with `before` null its version then, else the version before the one starting at `before` (after that one failed to decode). */
export type FileVersionLoader = (before: bigint | null) => Promise<FileContent>;

/**
 * Decoded versions of the system files by version key, the least recently used dropped first. A
 * version's content never changes, and a fee schedule of a real network is tens of kilobytes: read
 * and decoded for every result, it would cost more than the rest of the response.
 */
export class DecodedFileCache {
  // boxed: a decoded file may be null, which lru-cache does not store
  private readonly entries: LRUCache<string, { value: unknown }>;

  constructor(capacity = 1024) {
    this.entries = new LRUCache({ max: capacity });
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) return hit.value as T;
    const value = await load();
    this.entries.set(key, { value });
    return value;
  }
}

/**
 * Decodes a file, falling back to the version before it while a version fails to decode, for at
 * most `maxAttempts` versions in all. Null when the file does not exist or no version decodes.
 */
export async function decodeWithFallback<T>(
  file: FileContent,
  decode: (bytes: Uint8Array) => T,
  loadOlder: FileVersionLoader,
  maxAttempts: number,
): Promise<T | null> {
  let current = file;
  for (let attempt = 1; current.first_timestamp !== null; attempt++) {
    try {
      if (current.content !== null) return decode(current.content);
    } catch {
      // an undecodable version: fall back to the one before it
    }
    if (attempt >= maxAttempts) return null;
    current = await loadOlder(current.first_timestamp);
  }
  return null;
}

/**
 * price = max(1, gas × hbarEquiv ÷ (centEquiv × 1000)), with the ContractCall gas of the current fee
 * schedule and the current rate, or of the next ones once the current ones expired before the hour
 * of the timestamp. Null without a ContractCall entry or with a zero centEquiv.
 */
export function gasPriceOf(
  schedules: { current: FeeSchedule; next: FeeSchedule },
  rates: { current: ExchangeRate; next: ExchangeRate },
  timestamp: bigint,
): bigint | null {
  const reference = (timestamp / NANOS_PER_HOUR) * NANOS_PER_HOUR;
  const schedule = schedules.current.expirySeconds * NANOS_PER_SECOND < reference ? schedules.next : schedules.current;
  const rate = rates.current.expirationSeconds * NANOS_PER_SECOND < reference ? rates.next : rates.current;
  if (schedule.contractCallGas === null || rate.centEquiv === 0n) return null;
  const price = (schedule.contractCallGas * rate.hbarEquiv) / (rate.centEquiv * FEE_DIVISOR);
  return price < 1n ? 1n : price;
}

export interface GasPriceSources {
  feeSchedule: FileVersion;
  exchangeRate: FileVersion;
  loadFeeSchedule: FileVersionLoader;
  loadExchangeRate: FileVersionLoader;
  maxAttempts: number;
  cache: DecodedFileCache;
}

/** The gas price at `timestamp`, or null when either file is missing or undecodable. */
export async function gasPriceAt(timestamp: bigint, sources: GasPriceSources): Promise<bigint | null> {
  const decoded = <T>(file: string, version: FileVersion, decode: (bytes: Uint8Array) => T, load: FileVersionLoader): Promise<T | null> =>
    version.key === null
      ? Promise.resolve(null)
      : sources.cache.get(`${file} ${version.key} ${sources.maxAttempts}`, async () =>
          decodeWithFallback(await load(null), decode, load, sources.maxAttempts),
        );
  const [schedules, rates] = await Promise.all([
    decoded('fee schedule', sources.feeSchedule, decodeFeeSchedules, sources.loadFeeSchedule),
    decoded('exchange rate', sources.exchangeRate, decodeExchangeRateSet, sources.loadExchangeRate),
  ]);
  return schedules && rates ? gasPriceOf(schedules, rates, timestamp) : null;
}
