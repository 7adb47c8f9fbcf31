/** Value rules and conversions of the query parameters the endpoints share. */
import { parseEntityRef, type ShardRealm } from '../domain/entityId.js';
import { isTimestamp } from '../domain/timestamp.js';
import { transactionTypeId, EXTRA_TRANSACTION_TYPE_NAMES } from '../domain/transactionTypes.js';
import { MAX_INT64 } from '../domain/timestamp.js';
import type { Filter, ValueRule } from './filters.js';
import { lastFilter } from './filters.js';

const DIGITS_19 = /^\d{1,19}$/;

export function isPositiveInt64(value: string): boolean {
  if (!DIGITS_19.test(value)) return false;
  const n = BigInt(value);
  return n > 0n && n <= MAX_INT64;
}

export function isNonNegativeInt64(value: string): boolean {
  return DIGITS_19.test(value) && BigInt(value) <= MAX_INT64;
}

const isBoolean = (value: string) => /^(true|false)$/i.test(value);

export const rules = {
  limit: ((_op, v) => isPositiveInt64(v)) as ValueRule,
  order: ((_op, v) => v === 'asc' || v === 'desc') as ValueRule,
  timestamp: ((_op, v) => isTimestamp(v)) as ValueRule,
  transactiontype: ((_op, v) => transactionTypeId(v) !== undefined || EXTRA_TRANSACTION_TYPE_NAMES.has(v.toUpperCase())) as ValueRule,
  transactions: ((op, v) => op === 'eq' && isBoolean(v)) as ValueRule,
  serialnumber: ((_op, v) => isPositiveInt64(v)) as ValueRule,
  blockNumber: ((op, v) => op !== 'ne' && (isNonNegativeInt64(v) || /^0x[0-9a-fA-F]{1,16}$/.test(v))) as ValueRule,
  nonce: ((op, v) => op === 'eq' && /^\d{1,10}$/.test(v) && Number(v) <= 2_147_483_647) as ValueRule,
  hbar: ((op, v) => op === 'eq' && isBoolean(v)) as ValueRule,
};

/** `token.id`: an entity id or long-zero EVM address (opaque addresses are not accepted). */
export function entityIdRule(system: ShardRealm, allowOpaqueEvm: boolean): ValueRule {
  return (_op, v) => {
    const ref = parseEntityRef(v, system);
    return ref !== null && (allowOpaqueEvm || ref.kind === 'id');
  };
}

export type Order = 'asc' | 'desc';

/** The last `order` value, else the route's default. */
export function orderOf(filters: readonly Filter[], fallback: Order = 'desc'): Order {
  return (lastFilter(filters, 'order')?.value as Order | undefined) ?? fallback;
}

/** The last `limit` value capped at `max`, else `fallback`. */
export function limitOf(filters: readonly Filter[], fallback: number, max: number): number {
  const text = lastFilter(filters, 'limit')?.value;
  if (text === undefined) return fallback;
  const n = BigInt(text);
  return n > BigInt(max) ? max : Number(n);
}

export function booleanOf(filters: readonly Filter[], key: string, fallback: boolean): boolean {
  const text = lastFilter(filters, key)?.value;
  return text === undefined ? fallback : text.toLowerCase() === 'true';
}
