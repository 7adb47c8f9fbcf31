import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { arraysOf, SqlParams, statementText } from '../../src/db/statements.js';
import { useHarness } from '../support/harness.js';

describe('statement assembly', () => {
  const harness = useHarness();

  it('numbers parameters in the order they are added', () => {
    const params = new SqlParams();
    assert.deepEqual([params.add(5n), params.add('x'), params.add(null)], ['$1', '$2', '$3']);
    assert.deepEqual(params.values, [5n, 'x', null]);
  });

  it('assembles a shape once and returns the same text for its key', () => {
    let builds = 0;
    const build = () => `select ${++builds} as n`;
    const first = statementText('statements test shape', build);
    const again = statementText('statements test shape', build);
    assert.equal(builds, 1);
    assert.equal(again, first);
    assert.notEqual(statementText('statements test other shape', build), first);
  });

  it('aggregates a sorted subquery into arrays that line up in its order', async () => {
    const sql = arraysOf(
      `select v.n as ns, v.label as labels from (values (3, 'c'), (1, 'a'), (4, null), (2, 'b')) v(n, label) order by v.n desc`,
      ['ns', 'labels'],
      'row_',
    );
    const rows = await harness().db.query<{ row_ns: number[]; row_labels: (string | null)[] }>(sql);
    assert.deepEqual(rows, [{ row_ns: [4, 3, 2, 1], row_labels: [null, 'c', 'b', 'a'] }]);
  });

  it('gives NULL arrays for no rows', async () => {
    const rows = await harness().db.query(arraysOf('select 1 as ones where false order by 1', ['ones']));
    assert.deepEqual(rows, [{ ones: null }]);
  });
});

describe('array columns', () => {
  const harness = useHarness();

  it('parse the same through the splitting path and the general one', async () => {
    const rows = await harness().db.query(`select
        array['ab12', null, 'NULL', 'a,b', '', 'x y', 'q"t', 'b\\s', '{c}']::text[] as quoted,
        array['ab12', 'cd34', null]::text[] as plain,
        array['v1', null]::varchar[] as varchars,
        array[true, false, null]::bool[] as bools,
        array[1, -2, null]::int2[] as smallints,
        array[2147483647, null]::int4[] as ints,
        array[9223372036854775807, -1, null]::int8[] as bigints,
        array[]::text[] as empty,
        '[0:1]={x,y}'::text[] as lower_bound_zero,
        array[array[1, 2], array[3, 4]]::int4[] as nested`);
    assert.deepEqual(rows, [
      {
        quoted: ['ab12', null, 'NULL', 'a,b', '', 'x y', 'q"t', 'b\\s', '{c}'],
        plain: ['ab12', 'cd34', null],
        varchars: ['v1', null],
        bools: [true, false, null],
        smallints: [1, -2, null],
        ints: [2147483647, null],
        bigints: [9223372036854775807n, -1n, null],
        empty: [],
        lower_bound_zero: ['x', 'y'],
        nested: [
          [1, 2],
          [3, 4],
        ],
      },
    ]);
  });
});
