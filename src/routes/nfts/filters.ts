/** The query filters of the account NFT list, read and checked in the reference's order. */
import { parseEntityIdValue, parseEntityRef, type EntityRef, type ShardRealm } from '../../domain/entityId.js';
import { badRequest } from '../../http/errors.js';
import type { Filter, ValueRule } from '../../http/filters.js';
import { entityIdRule, rules } from '../../http/params.js';
import { Bound, validateBounds, type BoundOperator } from './bounds.js';

export const TOKEN_ID = 'token.id';
export const SERIAL_NUMBER = 'serialnumber';
export const SPENDER_ID = 'spender.id';

export function nftRules(system: ShardRealm): Record<string, ValueRule> {
  return {
    limit: rules.limit,
    order: rules.order,
    [SERIAL_NUMBER]: rules.serialnumber,
    [SPENDER_ID]: entityIdRule(system, true),
    [TOKEN_ID]: entityIdRule(system, false),
  };
}

export interface SpenderFilter {
  operator: BoundOperator;
  /** a packed id, or an opaque EVM address still to be resolved */
  ref: EntityRef;
}

export interface NftFilters {
  token: Bound;
  serial: Bound;
  /** `eq` values: alternatives */
  spenderEqual: SpenderFilter[];
  /** at most one lower and one upper bound */
  spenderRange: SpenderFilter[];
}

/** Splits validated filters into the token/serial bounds and the spender filters; rule violations are 400s. */
export function readNftFilters(filters: readonly Filter[], system: ShardRealm): NftFilters {
  const token = new Bound(TOKEN_ID);
  const serial = new Bound(SERIAL_NUMBER);
  const spenderEqual: SpenderFilter[] = [];
  const spenderOther: Filter[] = [];
  for (const filter of filters) {
    if (filter.key === TOKEN_ID) token.add(filter.operator, parseEntityIdValue(filter.value, system)!);
    else if (filter.key === SERIAL_NUMBER) serial.add(filter.operator, BigInt(filter.value));
    else if (filter.key === SPENDER_ID) {
      if (filter.operator === 'eq') spenderEqual.push({ operator: 'eq', ref: parseEntityRef(filter.value, system)! });
      else spenderOther.push(filter);
    }
  }
  validateBounds(token, serial);

  const count = (...ops: string[]) => spenderOther.filter((f) => ops.includes(f.operator)).length;
  if (count('lt', 'lte') > 1 || count('gt', 'gte') > 1) throw badRequest(`Multiple range params not allowed for ${SPENDER_ID}`);
  if (count('ne') > 0) throw badRequest('Not equals (ne) comparison operator is not supported');

  const spenderRange = spenderOther.map((f) => ({ operator: f.operator as BoundOperator, ref: parseEntityRef(f.value, system)! }));
  return { token, serial, spenderEqual, spenderRange };
}
