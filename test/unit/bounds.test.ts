import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tightestBounds } from '../../src/domain/bounds.js';
import { foldTimestampFilters } from '../../src/routes/accounts/timestampRange.js';

describe('range folding', () => {
  it('keeps the tightest inclusive bounds, gt and lt moved by one', () => {
    assert.deepEqual(
      tightestBounds([
        { operator: 'gt', value: 5n },
        { operator: 'gte', value: 5n },
        { operator: 'lte', value: 9n },
        { operator: 'lt', value: 9n },
        { operator: 'eq', value: 1n },
      ]),
      { lower: 6n, upper: 8n },
    );
    assert.deepEqual(tightestBounds([]), { lower: null, upper: null });
  });

  it('folds timestamp filters with distinct eq and ne values in their order', () => {
    assert.deepEqual(
      foldTimestampFilters([
        { operator: 'ne', value: 3n },
        { operator: 'eq', value: 2n },
        { operator: 'gte', value: 1n },
        { operator: 'eq', value: 1n },
        { operator: 'eq', value: 2n },
        { operator: 'ne', value: 3n },
      ]),
      { lower: 1n, upper: null, eq: [2n, 1n], ne: [3n] },
    );
  });
});
