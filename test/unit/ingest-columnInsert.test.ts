import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { arrayLiteral, columnInsert } from '../../src/ingest/writers/columnInsert.js';

describe('column-array inserts of the ingestion writer', () => {
  it('write array literals of int64s exactly, booleans, nulls, bytea as hex and quoted strings', () => {
    assert.equal(arrayLiteral([9223372036854775807n, -1n, 0, null, undefined]), '{9223372036854775807,-1,0,NULL,NULL}');
    assert.equal(arrayLiteral([true, false]), '{t,f}');
    assert.equal(arrayLiteral([Buffer.from([0, 0xab]), new Uint8Array([1, 2, 3]).subarray(1)]), '{"\\\\x00ab","\\\\x0203"}');
    assert.equal(arrayLiteral(['a,b', 'say "hi"', 'back\\slash', '', 'NULL']), '{"a,b","say \\"hi\\"","back\\\\slash","","NULL"}');
    assert.equal(arrayLiteral([]), '{}');
    assert.throws(() => arrayLiteral([{}]), /no array literal for a object/);
  });

  it('make one statement per table whose text depends on the columns only, one array per column', () => {
    const types = new Map([
      ['consensus_timestamp', 'bigint'],
      ['entity_id', 'bigint'],
      ['is_approval', 'boolean'],
    ]);
    const rows = [
      { consensus_timestamp: 1n, entity_id: 98n, is_approval: false },
      { consensus_timestamp: 2n, entity_id: null, is_approval: true },
    ];
    const { text, params } = columnInsert('crypto_transfer', types, rows);
    assert.equal(
      text,
      'insert into crypto_transfer ("consensus_timestamp", "entity_id", "is_approval") select * from unnest($1::bigint[], $2::bigint[], $3::boolean[])',
    );
    assert.deepEqual(params, ['{1,2}', '{98,NULL}', '{f,t}']);
    assert.equal(columnInsert('crypto_transfer', types, [rows[0]!]).text, text);
    assert.throws(() => columnInsert('crypto_transfer', types, [{ amount: 1n }]), /crypto_transfer has no column amount/);
  });
});
