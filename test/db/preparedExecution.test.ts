import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness } from '../support/harness.js';

/**
 * On PostgreSQL a named statement is described on its first execution per connection and runs
 * without Describe afterwards (PreparedExecution); every execution must give the same rows and
 * the same errors. Sequential queries reuse the same pooled connection.
 */
describe('repeated executions of a statement', () => {
  const harness = useHarness();
  const thrice = async (text: string, params: unknown[] = []) => {
    const db = harness().db;
    return [await db.query(text, params), await db.query(text, params), await db.query(text, params)];
  };

  it('return the same rows, typed by the first execution, on every run', async () => {
    const runs = await thrice(
      `select $1::bigint as big, $2::int as small, $3::text as label, true as flag, '\\x0aff'::bytea as bytes,
         '{"n": 12345678901234567890}'::jsonb as doc, array[$1::bigint, null] as bigs, null::text as nothing,
         1 as dup, 2 as dup
       from generate_series(1, 2)`,
      [9223372036854775807n, 7, 'x,y'],
    );
    const row = {
      big: 9223372036854775807n,
      small: 7,
      label: 'x,y',
      flag: true,
      bytes: Uint8Array.from([0x0a, 0xff]),
      doc: { n: 12345678901234567890n },
      bigs: [9223372036854775807n, null],
      nothing: null,
      dup: 2,
    };
    for (const rows of runs) {
      assert.equal(rows.length, 2);
      for (const r of rows) {
        assert.deepEqual({ ...r, bytes: Uint8Array.from(r.bytes as Uint8Array) }, row);
      }
    }
  });

  it('return no rows as an empty list on every run', async () => {
    assert.deepEqual(await thrice('select 1 as one where $1::int > 1', [0]), [[], [], []]);
  });

  it('reject an error at execution time, and the next statement runs', async () => {
    const db = harness().db;
    const text = 'select 10 / $1::int as q';
    assert.deepEqual(await db.query(text, [2]), [{ q: 5 }]);
    assert.deepEqual(await db.query(text, [5]), [{ q: 2 }]);
    await assert.rejects(db.query(text, [0]), /division by zero/);
    await assert.rejects(db.query(text, [0]), /division by zero/);
    assert.deepEqual(await db.query(text, [1]), [{ q: 10 }]);
  });

  it('inside a transaction, as outside', async () => {
    const db = harness().db;
    const text = 'select $1::bigint + 1 as next';
    const rows = await db.transaction(async (tx) => [await tx.query(text, [1n]), await tx.query(text, [2n]), await tx.query(text, [3n])]);
    assert.deepEqual(rows, [[{ next: 2n }], [{ next: 3n }], [{ next: 4n }]]);
  });
});
