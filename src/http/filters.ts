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

export interface Filter {
  key: string;
  operator: Operator;
  /** the value text after the operator */
  value: string;
}

/** A per-key rule: whether `operator:value` is acceptable for the key. */
export type ValueRule = (operator: Operator, value: string) => boolean;

/** Splits `op:value` as the reference does: no colon means `eq`; otherwise the first two pieces. */
export function splitFilter(text: string): { operator: string; value: string } {
  const pieces = text.split(':');
  return pieces.length === 1 ? { operator: 'eq', value: text } : { operator: pieces[0]!, value: pieces[1]! };
}

/** The rule of `key`: an own entry only (`toString` is not a rule of every route). */
function ruleOf(rules: Readonly<Record<string, ValueRule>>, key: string): ValueRule | undefined {
  return Object.hasOwn(rules, key) ? rules[key] : undefined;
}

export const countExceededMessage = (key: string, count: number, max: number) =>
  `Parameter values count exceeds maximum number allowed: ${key} count: ${count} max: ${max}`;

/**
 * The reference's buildAndValidateFilters: every value of every key becomes a filter; messages are
 * the repeated-value counts first, then one "Invalid parameter" per bad filter, then one
 * "Unknown query parameter" per filter of an unaccepted key, all thrown together.
 */
export function buildFilters(query: RequestQuery, rules: Readonly<Record<string, ValueRule>>, maxRepeated: number): Filter[] {
  if (query.error) throw new ApiError(400, [query.error]);
  const countMessages: string[] = [];
  const invalid: string[] = [];
  const unknown: string[] = [];
  const filters: Filter[] = [];
  for (const [key, raw] of query.entries) {
    if (Array.isArray(raw) && raw.length > maxRepeated) {
      countMessages.push(countExceededMessage(key, raw.length, maxRepeated));
      continue;
    }
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      const { operator, value } = splitFilter(text);
      const rule = ruleOf(rules, key);
      if (!rule) unknown.push(unknownParameterMessage(key));
      else if (!isOperator(operator) || !rule(operator, value)) invalid.push(invalidParameterMessage(key));
      else filters.push({ key, operator, value });
    }
  }
  const messages = [...countMessages, ...invalid, ...unknown];
  if (messages.length > 0) throw new ApiError(400, messages);
  return filters;
}

/**
 * The reference's validateReq (single-resource routes): keys in query order, one "Unknown query
 * parameter" per unaccepted key, one "Invalid parameter" per bad value of an accepted key.
 */
export function validateParams(query: RequestQuery, rules: Readonly<Record<string, ValueRule>>): Filter[] {
  if (query.error) throw new ApiError(400, [query.error]);
  const messages: string[] = [];
  const filters: Filter[] = [];
  for (const [key, raw] of query.entries) {
    const rule = ruleOf(rules, key);
    if (!rule) {
      messages.push(unknownParameterMessage(key));
      continue;
    }
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      const { operator, value } = splitFilter(text);
      if (!isOperator(operator) || !rule(operator, value)) messages.push(invalidParameterMessage(key));
      else filters.push({ key, operator, value });
    }
  }
  if (messages.length > 0) throw new ApiError(400, messages);
  return filters;
}

export function filtersOf(filters: readonly Filter[], key: string): Filter[] {
  return filters.filter((f) => f.key === key);
}

export function lastFilter(filters: readonly Filter[], key: string): Filter | undefined {
  return filtersOf(filters, key).at(-1);
}
