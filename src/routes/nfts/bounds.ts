/**
 * A two-column key (`token.id` then `serialnumber`) bounded the way the reference bounds it: each
 * column takes at most one `eq`, one lower and one upper filter, and a serial range is read as a
 * range over the pair, so it is split into at most three parts that each stay on one index range.
 */
import { badRequest } from '../../http/errors.js';
import type { Operator } from '../../http/filters.js';

export type BoundOperator = Exclude<Operator, 'ne'>;

export interface BoundFilter {
  operator: BoundOperator;
  value: bigint;
}

export class Bound {
  equal: BoundFilter | null = null;
  lower: BoundFilter | null = null;
  upper: BoundFilter | null = null;

  constructor(readonly key: string) {}

  /** Adds one filter; a second filter of the same kind or `ne` is a 400, as the reference reads them. */
  add(operator: Operator, value: bigint): void {
    if (operator === 'eq') {
      if (this.equal) throw badRequest(`Only one equal (eq) operator is allowed for ${this.key}`);
      this.equal = { operator, value };
    } else if (operator === 'gt' || operator === 'gte') {
      if (this.lower) throw badRequest(`Only one gt/gte operator is allowed for ${this.key}`);
      this.lower = { operator, value };
    } else if (operator === 'lt' || operator === 'lte') {
      if (this.upper) throw badRequest(`Only one lt/lte operator is allowed for ${this.key}`);
      this.upper = { operator, value };
    } else {
      throw badRequest(`Not equal (ne) operator is not supported for ${this.key}`);
    }
  }

  hasRange(): boolean {
    return this.lower !== null || this.upper !== null;
  }

  isEmpty(): boolean {
    return this.equal === null && !this.hasRange();
  }
}

/** The reference's combination rules of a primary and a secondary bound, checked in its order. */
export function validateBounds(primary: Bound, secondary: Bound): void {
  for (const bound of [primary, secondary]) {
    if (bound.hasRange() && bound.equal) throw badRequest(`Can't support both range and equal for ${bound.key}`);
  }
  if (primary.isEmpty() && !secondary.isEmpty()) {
    throw badRequest(`${secondary.key} without a ${primary.key} parameter filter`);
  }
  if (!primary.equal && secondary.lower && (!primary.lower || primary.lower.operator === 'gt')) {
    throw badRequest(`${primary.key} must have gte or eq operator`);
  }
  if (!primary.equal && secondary.upper && (!primary.upper || primary.upper.operator === 'lt')) {
    throw badRequest(`${primary.key} must have lte or eq operator`);
  }
}

/** A filter on the primary or the secondary column. */
export interface KeyCondition {
  primary: boolean;
  operator: BoundOperator;
  value: bigint;
}

const onPrimary = (f: BoundFilter, operator: BoundOperator = f.operator): KeyCondition => ({ primary: true, operator, value: f.value });
const onSecondary = (f: BoundFilter): KeyCondition => ({ primary: false, operator: f.operator, value: f.value });
const present = <T>(items: (T | null)[]): T[] => items.filter((x): x is T => x !== null);

/**
 * The parts whose union is the requested range: without a secondary range a single part; otherwise
 * the lower edge (primary = its lower value, secondary lower bound), the primary values between
 * the edges, and the upper edge (primary = its upper value, secondary upper bound).
 * Where both edges fall on the same primary value they are one part, bounded on both sides (the
 * reference's separate edge parts would then overlap and repeat rows, e.g. on the last page of a
 * paged range). Never empty: no filters at all is one part without conditions.
 */
export function rangeParts(primary: Bound, secondary: Bound): KeyCondition[][] {
  if (!secondary.hasRange()) {
    return [
      [...present([primary.equal, primary.lower, primary.upper]).map((f) => onPrimary(f)), ...present([secondary.equal]).map(onSecondary)],
    ];
  }
  if (primary.equal) {
    return [[onPrimary(primary.equal), ...present([secondary.lower, secondary.upper]).map(onSecondary)]];
  }
  const { lower, upper } = primary;
  if (lower && upper && secondary.lower && secondary.upper && lower.value === upper.value) {
    return [[onPrimary(lower, 'eq'), onSecondary(secondary.lower), onSecondary(secondary.upper)]];
  }
  const parts: KeyCondition[][] = [];
  if (lower && secondary.lower) parts.push([onPrimary(lower, 'eq'), onSecondary(secondary.lower)]);
  if (primary.hasRange()) {
    parts.push(
      present([
        lower && onPrimary(lower, secondary.lower ? 'gt' : lower.operator),
        upper && onPrimary(upper, secondary.upper ? 'lt' : upper.operator),
      ]),
    );
  }
  if (upper && secondary.upper) parts.push([onPrimary(upper, 'eq'), onSecondary(secondary.upper)]);
  return parts.length > 0 ? parts : [[]];
}
