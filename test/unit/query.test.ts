import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/http/errors.js';
import { buildFilters, splitFilter, validateParams } from '../../src/http/filters.js';
import { nextLink } from '../../src/http/pagination.js';
import { pageSize, rules } from '../../src/http/params.js';
import { parseQueryString } from '../../src/http/query.js';
import { parseTimestamp } from '../../src/domain/timestamp.js';

const messagesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return { status: err.statusCode, messages: err.messages };
  }
  assert.fail('expected an ApiError');
};

describe('query parsing', () => {
  it('lower-cases keys, merges repeats in first-seen order and lower-cases order values', () => {
    const q = parseQueryString('Timestamp=gt:1&LIMIT=5&timestamp=lt:2&order=ASC&memo=AbC', 8);
    assert.deepEqual(
      [...q.entries],
      [
        ['timestamp', ['gt:1', 'lt:2']],
        ['limit', '5'],
        ['order', 'asc'],
        ['memo', 'AbC'],
      ],
    );
    assert.equal(q.last('timestamp'), 'lt:2');
  });

  it('reports the reference qs errors for deep nesting and long arrays', () => {
    assert.equal(parseQueryString('a[b][c]=1', 8).error, 'Input depth exceeded depth option of 1 and strictDepth is true');
    assert.equal(
      parseQueryString(Array.from({ length: 9 }, () => 'a=1').join('&'), 8).error,
      'Array limit exceeded. Only 8 elements allowed in an array.',
    );
    assert.equal(parseQueryString('a=%20b+c', 8).last('a'), ' b c');
  });
});

describe('filters', () => {
  const listRules = { limit: rules.limit, order: rules.order, timestamp: rules.timestamp };

  it('splits operator and value like the reference', () => {
    assert.deepEqual(splitFilter('5'), { operator: 'eq', value: '5' });
    assert.deepEqual(splitFilter('gte:5'), { operator: 'gte', value: '5' });
    assert.deepEqual(splitFilter('gt:1:2'), { operator: 'gt', value: '1' });
  });

  it('collects count, invalid and unknown messages in that order', () => {
    const q = parseQueryString('foo=1&limit=0&timestamp=xx:1&TIMESTAMP=1&timestamp=2&Timestamp=3&order=up', 2);
    assert.deepEqual(
      messagesOf(() => buildFilters(q, listRules, 2)),
      {
        status: 400,
        messages: [
          'Parameter values count exceeds maximum number allowed: timestamp count: 4 max: 2',
          'Invalid parameter: limit',
          'Invalid parameter: order',
          'Unknown query parameter: foo',
        ],
      },
    );
  });

  it('validates single-resource parameters in key order', () => {
    const q = parseQueryString('index=3&nonce=x&limit=2', 8);
    assert.deepEqual(messagesOf(() => validateParams(q, { nonce: rules.nonce })).messages, [
      'Unknown query parameter: index',
      'Invalid parameter: nonce',
      'Unknown query parameter: limit',
    ]);
  });

  it('takes the last limit capped at the max, and the last order', () => {
    const filters = buildFilters(parseQueryString('limit=5&limit=500&order=asc&order=desc', 8), listRules, 8);
    assert.equal(pageSize(filters.last('limit'), 25, 100), 100);
    assert.equal(filters.last('order'), 'desc');
    assert.equal(pageSize(undefined, 25, 100), 25);
    assert.equal(buildFilters(parseQueryString('', 8), listRules, 8).last('order'), undefined);
  });

  it('accepts limits up to 2^63-1 and rejects 0 and longer numbers', () => {
    assert.equal(rules.limit('eq', '9223372036854775807'), 9223372036854775807n);
    assert.equal(rules.limit('eq', '9223372036854775808'), undefined);
    assert.equal(rules.limit('eq', '0'), undefined);
    assert.equal(rules.limit('eq', '-1'), undefined);
  });

  it('gives each filter the value its rule parsed, keys in first-seen order', () => {
    const filters = buildFilters(parseQueryString('timestamp=gt:1.5&order=ASC&timestamp=lte:2', 8), listRules, 8);
    assert.deepEqual(filters.of('timestamp'), [
      { key: 'timestamp', operator: 'gt', value: 1_500_000_000n },
      { key: 'timestamp', operator: 'lte', value: 2_000_000_000n },
    ]);
    assert.deepEqual(
      filters.all.map((f) => f.key),
      ['timestamp', 'timestamp', 'order'],
    );
    assert.equal(rules.transactions('eq', 'FALSE'), false);
    assert.equal(rules.transactions('ne', 'false'), undefined);
    assert.equal(rules.transactiontype('eq', 'cryptotransfer'), 14);
    assert.equal(rules.transactiontype('eq', 'unknown'), 'unknown');
    assert.equal(rules.transactiontype('eq', 'NODE'), 'none');
    assert.equal(rules.blockNumber('gt', '0x1f'), 31n);
    assert.equal(rules.nonce('eq', '2147483648'), undefined);
  });
});

describe('next links', () => {
  const toBound = (v: string) => parseTimestamp(v);
  const link = (qs: string, order: 'asc' | 'desc', value: string, inclusive = false) =>
    nextLink('/api/v1/x/', parseQueryString(qs, 8), order, [{ field: 'timestamp', value, inclusive, toBound }]);

  it('appends a new bound at the end when the key is absent', () => {
    assert.equal(link('limit=2', 'desc', '5.000000001'), '/api/v1/x?limit=2&timestamp=lt:5.000000001');
  });

  it('replaces a same-direction bound and keeps the opposite one', () => {
    assert.equal(link('timestamp=gt:1&timestamp=lt:9&limit=1', 'desc', '5.1'), '/api/v1/x?timestamp=gt:1&timestamp=lt:5.1&limit=1');
    assert.equal(link('timestamp=lt:9&limit=1', 'desc', '5.1'), '/api/v1/x?limit=1&timestamp=lt:5.1');
    assert.equal(link('timestamp=gte:1&limit=1', 'asc', '5.1', true), '/api/v1/x?limit=1&timestamp=gte:5.1');
  });

  it('does not add a bound next to an equality value', () => {
    assert.equal(link('timestamp=5&limit=1', 'desc', '5.1'), '/api/v1/x?timestamp=5&limit=1');
  });

  it('returns null when the continuation range is empty', () => {
    assert.equal(link('timestamp=gt:5&limit=1', 'desc', '5.000000001'), null);
    assert.equal(link('timestamp=gt:5&limit=1', 'desc', '5.000000002'), '/api/v1/x?timestamp=gt:5&timestamp=lt:5.000000002&limit=1');
  });
});
