import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { useHarness } from '../support/harness.js';

/**
 * A mirror node database declares domains over bigint, smallint and char(1), and enums; their type
 * ids, and those of arrays over them, differ in every database. Each reads as its base type.
 */
describe('domain and enum types', () => {
  const harness = useHarness();
  const suffix = randomBytes(4).toString('hex');
  const t = (name: string) => `${name}_${suffix}`;

  const expected = {
    id: 9223372036854775807n,
    small: 7,
    flag: 'A',
    bytes: Buffer.from('0102ff', 'hex'),
    kind: 'TOKEN',
    ids: [9223372036854775807n, -5n, null],
    smalls: [7, -1],
    flags: ['A', 'B'],
    kinds: ['ACCOUNT', 'TOKEN'],
    bytess: [Buffer.from('0102ff', 'hex'), null],
  };

  const select = (table: string) => `select d.id, d.small, d.flag, d.bytes, d.kind,
      array_agg(x.id order by x.n) as ids, array[d.small, (-1)::${t('small_d')}] as smalls,
      array[d.flag, 'B'::${t('flag_d')}] as flags, array['ACCOUNT'::${t('kind_e')}, d.kind] as kinds,
      array[d.bytes, null] as bytess
    from ${table} d cross join (values (1, ${'9223372036854775807'}::${t('id_d')}), (2, (-5)::${t('id_d')}), (3, null::${t('id_d')})) x(n, id)
    group by d.id, d.small, d.flag, d.bytes, d.kind`;

  const normalise = (row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        v instanceof Uint8Array ? Buffer.from(v) : Array.isArray(v) ? v.map((e) => (e instanceof Uint8Array ? Buffer.from(e) : e)) : v,
      ]),
    );

  const createTable = async (name: string) => {
    const db = harness().db;
    await db.exec(`create domain ${t('id_d')} as bigint;
      create domain ${t('small_d')} as smallint;
      create domain ${t('flag_d')} as char(1);
      create domain ${t('bytes_d')} as bytea;
      create type ${t('kind_e')} as enum ('ACCOUNT', 'TOKEN');
      create table ${name} (id ${t('id_d')}, small ${t('small_d')}, flag ${t('flag_d')}, bytes ${t('bytes_d')}, kind ${t('kind_e')});
      insert into ${name} values (9223372036854775807, 7, 'A', '\\x0102ff', 'TOKEN');`);
  };

  it('reads domains, enums and arrays of them as their base types, also when created after the connection was opened', async () => {
    const db = harness().db;
    await createTable(t('typed'));
    // the first execution describes the statement, the next ones reuse the recorded parsers
    for (let run = 0; run < 3; run++) {
      const rows = await db.query(select(t('typed')));
      assert.deepEqual(rows.map(normalise), [expected], `run ${run}`);
    }
    const inTransaction = await db.transaction((tx) => tx.query(select(t('typed'))));
    assert.deepEqual(inTransaction.map(normalise), [expected]);
  });

  it('reads them after the catalog is read again', async () => {
    const db = harness().db;
    await db.refreshTypes();
    const rows = await db.query(select(t('typed')) + ' limit 1');
    assert.deepEqual(rows.map(normalise), [expected]);
  });
});
