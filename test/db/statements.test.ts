import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { arraysOf, shapeKey, SqlParams, statementShape } from '../../src/db/statements.js';
import { useHarness } from '../support/harness.js';

describe('statement assembly', () => {
  const harness = useHarness();

  it('numbers parameters in the order they are added', () => {
    const params = new SqlParams();
    assert.deepEqual([params.add(5n), params.add('x'), params.add(null)], ['$1', '$2', '$3']);
    assert.deepEqual(params.values, [5n, 'x', null]);
  });

  it('assembles a shape once and returns the same string object for it', () => {
    let builds = 0;
    const build = statementShape((order: 'asc' | 'desc', p: { account: string; limit: string }) => {
      builds++;
      return `select * from t where a = ${p.account} order by ts ${order} limit ${p.limit}`;
    });
    const first = build('desc', { account: '$1', limit: '$2' });
    // a copy of the arguments, with the object's keys in another order, is the same shape
    const again = build('desc', { limit: '$2', account: '$1' });
    assert.equal(builds, 1);
    assert.ok(Object.is(again, first));
  });

  it('never gives two shapes one text', () => {
    const build = statementShape(
      (order: string, p: { account: string; limit: string }, excluded: boolean) =>
        `select * from t where a = ${p.account}${excluded ? ' and a <> 98' : ''} order by ts ${order} limit ${p.limit}`,
    );
    const shapes: [string, { account: string; limit: string }, boolean][] = [
      ['desc', { account: '$1', limit: '$2' }, false],
      ['asc', { account: '$1', limit: '$2' }, false],
      ['desc', { account: '$2', limit: '$1' }, false],
      ['desc', { account: '$1', limit: '$2' }, true],
    ];
    const texts = shapes.map((args) => build(...args));
    assert.equal(new Set(texts).size, 4);
    // and two builders never share a cache, even with the same arguments
    const other = statementShape((order: string) => `select ${order}`);
    assert.equal(other('desc'), 'select desc');
  });

  it('refuses values in a shape: they travel as parameters', () => {
    const build = statementShape((x: unknown) => `select ${String(x)}`);
    for (const value of [42n, Buffer.from('ab'), new Uint8Array([1]), new Date(0), 1.5, undefined, () => 1, { id: 7n }, [[1n]]]) {
      assert.throws(() => build(value), TypeError, String(value));
    }
    assert.equal(shapeKey(['$1', 'desc', true, null, 3, [{ b: '$2', a: 'eq' }]]), '["$1","desc",true,null,3,[{"a":"eq","b":"$2"}]]');
  });

  it('keys a shape as JSON with sorted object keys, escaping as JSON does', () => {
    const texts = ['', 'a"b', 'back\\slash', 'line\nbreak', '\u0001', 'pair \ud83d\ude00', 'lone \ud800', 'tab\t', 'é'];
    const shape = [texts, { z: texts, 'k"ey': 1, a: [{ c: false, b: null }], '': -2 }, Object.assign(Object.create(null), { y: 'x' })];
    const sorted = [texts, { '': -2, a: [{ b: null, c: false }], 'k"ey': 1, z: texts }, { y: 'x' }];
    assert.equal(shapeKey(shape), JSON.stringify(sorted));
    // the same shape with its keys in another order is the same key
    assert.equal(shapeKey([{ b: 1, a: 2, c: [{ e: 'x', d: 'y' }] }]), shapeKey([{ c: [{ d: 'y', e: 'x' }], a: 2, b: 1 }]));
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
