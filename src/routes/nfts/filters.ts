/** The query filters of the account NFT list, read and checked in the reference's order. */
import type { EntityRef, ShardRealm } from '../../domain/entityId.js';
import { badRequest } from '../../http/errors.js';
import type { Filters, Operator } from '../../http/filters.js';
import { entityIdRule, entityRefRule, rules } from '../../http/params.js';
import { Bound, validateBounds, type BoundOperator } from './bounds.js';

export const TOKEN_ID = 'token.id';
export const SERIAL_NUMBER = 'serialnumber';
export const SPENDER_ID = 'spender.id';

export function nftRules(system: ShardRealm) {
  return {
    limit: rules.limit,
    order: rules.order,
    [SERIAL_NUMBER]: rules.serialnumber,
    [SPENDER_ID]: entityRefRule(system),
    [TOKEN_ID]: entityIdRule(system),
  };
}

export type NftRules = ReturnType<typeof nftRules>;

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
export function readNftFilters(filters: Filters<NftRules>): NftFilters {
  const token = new Bound(TOKEN_ID);
  const serial = new Bound(SERIAL_NUMBER);
  const spenderEqual: SpenderFilter[] = [];
  const spenderOther: { operator: Operator; ref: EntityRef }[] = [];
  for (const filter of filters.all) {
    if (filter.key === TOKEN_ID) token.add(filter.operator, filter.value);
    else if (filter.key === SERIAL_NUMBER) serial.add(filter.operator, filter.value);
    else if (filter.key === SPENDER_ID) {
      if (filter.operator === 'eq') spenderEqual.push({ operator: 'eq', ref: filter.value });
      else spenderOther.push({ operator: filter.operator, ref: filter.value });
    }
  }
  validateBounds(token, serial);

  const count = (...ops: string[]) => spenderOther.filter((f) => ops.includes(f.operator)).length;
  if (count('lt', 'lte') > 1 || count('gt', 'gte') > 1) throw badRequest(`Multiple range params not allowed for ${SPENDER_ID}`);
  if (count('ne') > 0) throw badRequest('Not equals (ne) comparison operator is not supported');

  const spenderRange = spenderOther.map((f) => ({ operator: f.operator as BoundOperator, ref: f.ref }));
  return { token, serial, spenderEqual, spenderRange };
}
