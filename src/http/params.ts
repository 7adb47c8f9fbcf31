/** Value rules of the query parameters the endpoints share: each accepts a value by parsing it. */
import { parseEntityRef, type EntityRef, type ShardRealm } from '../domain/entityId.js';
import { MAX_INT64, parseTimestamp } from '../domain/timestamp.js';
import { transactionTypeId } from '../domain/transactionTypes.js';
import type { ValueRule } from './filters.js';

const DIGITS_19 = /^\d{1,19}$/;

/** A decimal integer in [1, 2^63-1], else undefined. */
export function parsePositiveInt64(text: string): bigint | undefined {
  if (!DIGITS_19.test(text)) return undefined;
  const n = BigInt(text);
  return n > 0n && n <= MAX_INT64 ? n : undefined;
}

/** A decimal integer in [0, 2^63-1], else undefined. */
export function parseNonNegativeInt64(text: string): bigint | undefined {
  if (!DIGITS_19.test(text)) return undefined;
  const n = BigInt(text);
  return n <= MAX_INT64 ? n : undefined;
}

/** `true` or `false` in any case, else undefined. */
export function parseBoolean(text: string): boolean | undefined {
  return /^(true|false)$/i.test(text) ? text.toLowerCase() === 'true' : undefined;
}

const BLOCK_NUMBER_HEX = /^0x[0-9a-fA-F]{1,16}$/;

/** A block number: decimal in [0, 2^63-1] or 0x-prefixed hex of up to 16 digits. */
export function parseBlockNumber(text: string): bigint | undefined {
  return parseNonNegativeInt64(text) ?? (BLOCK_NUMBER_HEX.test(text) ? BigInt(text) : undefined);
}

export type Order = 'asc' | 'desc';

/**
 * A `transactiontype` value: a type id, `unknown` (every id outside the known ones) or `none`
 * (`NODE`, a name that selects no transaction).
 */
export type TransactionTypeValue = number | 'unknown' | 'none';

function parseTransactionType(text: string): TransactionTypeValue | undefined {
  const id = transactionTypeId(text);
  if (id !== undefined) return id;
  const upper = text.toUpperCase();
  return upper === 'UNKNOWN' ? 'unknown' : upper === 'NODE' ? 'none' : undefined;
}

const MAX_INT32 = 2_147_483_647;

export const rules = {
  limit: ((_op, v) => parsePositiveInt64(v)) as ValueRule<bigint>,
  order: ((_op, v) => (v === 'asc' || v === 'desc' ? v : undefined)) as ValueRule<Order>,
  /** nanoseconds; 10 second digits can exceed int64, which each consumer handles */
  timestamp: ((_op, v) => parseTimestamp(v) ?? undefined) as ValueRule<bigint>,
  transactiontype: ((_op, v) => parseTransactionType(v)) as ValueRule<TransactionTypeValue>,
  transactions: ((op, v) => (op === 'eq' ? parseBoolean(v) : undefined)) as ValueRule<boolean>,
  serialnumber: ((_op, v) => parsePositiveInt64(v)) as ValueRule<bigint>,
  blockNumber: ((op, v) => (op !== 'ne' ? parseBlockNumber(v) : undefined)) as ValueRule<bigint>,
  nonce: ((op, v) => (op === 'eq' && /^\d{1,10}$/.test(v) && Number(v) <= MAX_INT32 ? Number(v) : undefined)) as ValueRule<number>,
  hbar: ((op, v) => (op === 'eq' ? parseBoolean(v) : undefined)) as ValueRule<boolean>,
};

/** An entity id or long-zero EVM address as its encoded id (opaque addresses are not accepted). */
export function entityIdRule(system: ShardRealm): ValueRule<bigint> {
  return (_op, v) => {
    const ref = parseEntityRef(v, system);
    return ref?.kind === 'id' ? ref.id : undefined;
  };
}

/** An entity id or any EVM address: an encoded id, or an opaque address still to be resolved. */
export function entityRefRule(system: ShardRealm): ValueRule<EntityRef> {
  return (_op, v) => parseEntityRef(v, system) ?? undefined;
}

/** The page size: the `limit` value capped at `max`, else `fallback`. */
export function pageSize(limit: bigint | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  return limit > BigInt(max) ? max : Number(limit);
}
