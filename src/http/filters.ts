/**
 * Query filters `key=[op:]value` with the operators eq ne lt lte gt gte, validated the way the
 * reference validates them, with its messages and their order.
 */
import { ApiError, invalidParameterMessage, unknownParameterMessage } from './errors.js';
import type { RequestQuery } from './query.js';

export const OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'] as const;
export type Operator = (typeof OPERATORS)[number];

export function isOperator(text: string): text is Operator {
  return (OPERATORS as readonly string[]).includes(text);
}

/**
 * A per-key rule: the value of `operator:value` parsed into what the route uses, or undefined when
 * the key does not accept it. Each value is parsed here once; consumers read the parsed value.
 */
export type ValueRule<T = unknown> = (operator: Operator, value: string) => T | undefined;

export type Rules = Readonly<Record<string, ValueRule>>;

/** The type of the values a rule accepts. */
export type ParsedValue<Rule> = Rule extends ValueRule<infer T> ? T : never;

/** A filter of one of the keys of `R`, with the value its rule parsed. */
export type Filter<R extends Rules = Rules> = {
  [K in keyof R & string]: { key: K; operator: Operator; value: ParsedValue<R[K]> };
}[keyof R & string];

/** The validated filters of a request, in query order (keys in first-seen order), with typed access by key. */
export class Filters<R extends Rules> {
  constructor(readonly all: readonly Filter<R>[]) {}

  /** The filters of `key`, in query order. */
  of<K extends keyof R & string>(key: K): Extract<Filter<R>, { key: K }>[] {
    return this.all.filter((f) => f.key === key) as Extract<Filter<R>, { key: K }>[];
  }

  /** The last value of `key` (the reference's "last value wins" rule), undefined when absent. */
  last<K extends keyof R & string>(key: K): ParsedValue<R[K]> | undefined {
    return this.of(key).at(-1)?.value as ParsedValue<R[K]> | undefined;
  }
}

/** Splits `op:value` as the reference does: no colon means `eq`; otherwise the first two pieces. */
export function splitFilter(text: string): { operator: string; value: string } {
  const pieces = text.split(':');
  return pieces.length === 1 ? { operator: 'eq', value: text } : { operator: pieces[0]!, value: pieces[1]! };
}

/** The rule of `key`: an own entry only (`toString` is not a rule of every route). */
function ruleOf(rules: Rules, key: string): ValueRule | undefined {
  return Object.hasOwn(rules, key) ? rules[key] : undefined;
}

export const countExceededMessage = (key: string, count: number, max: number) =>
  `Parameter values count exceeds maximum number allowed: ${key} count: ${count} max: ${max}`;

/**
 * The reference's buildAndValidateFilters: every value of every key becomes a filter; messages are
 * the repeated-value counts first, then one "Invalid parameter" per bad filter, then one
 * "Unknown query parameter" per filter of an unaccepted key, all thrown together.
 */
export function buildFilters<R extends Rules>(query: RequestQuery, rules: R, maxRepeated: number): Filters<R> {
  if (query.error) throw new ApiError(400, [query.error]);
  const countMessages: string[] = [];
  const invalid: string[] = [];
  const unknown: string[] = [];
  const filters: Filter<R>[] = [];
  for (const [key, raw] of query.entries) {
    if (Array.isArray(raw) && raw.length > maxRepeated) {
      countMessages.push(countExceededMessage(key, raw.length, maxRepeated));
      continue;
    }
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      const { operator, value } = splitFilter(text);
      const rule = ruleOf(rules, key);
      const parsed = rule && isOperator(operator) ? rule(operator, value) : undefined;
      if (!rule) unknown.push(unknownParameterMessage(key));
      else if (parsed === undefined) invalid.push(invalidParameterMessage(key));
      else filters.push({ key, operator, value: parsed } as Filter<R>);
    }
  }
  const messages = [...countMessages, ...invalid, ...unknown];
  if (messages.length > 0) throw new ApiError(400, messages);
  return new Filters(filters);
}

/**
 * The reference's validateReq (single-resource routes): keys in query order, one "Unknown query
 * parameter" per unaccepted key, one "Invalid parameter" per bad value of an accepted key.
 */
export function validateParams<R extends Rules>(query: RequestQuery, rules: R): Filters<R> {
  if (query.error) throw new ApiError(400, [query.error]);
  const messages: string[] = [];
  const filters: Filter<R>[] = [];
  for (const [key, raw] of query.entries) {
    const rule = ruleOf(rules, key);
    if (!rule) {
      messages.push(unknownParameterMessage(key));
      continue;
    }
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      const { operator, value } = splitFilter(text);
      const parsed = isOperator(operator) ? rule(operator, value) : undefined;
      if (parsed === undefined) messages.push(invalidParameterMessage(key));
      else filters.push({ key, operator, value: parsed } as Filter<R>);
    }
  }
  if (messages.length > 0) throw new ApiError(400, messages);
  return new Filters(filters);
}
