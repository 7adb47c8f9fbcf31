/**
 * SystemFileVersions (the fee schedule and exchange rate versions of the gas price, kept in the
 * process): the same version as the statement that looks them up at every timestamp, rows after
 * the watermark read once when a later result asks, a statement of their own when no watermark
 * covers the result, and the rows read anew after their maximum age.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Queryable } from '../../src/db/db.js';
import { findFileVersions } from '../../src/routes/contract-results/queries.js';
import { SystemFileVersions, type SystemFileVersionsAt } from '../../src/routes/contract-results/systemFiles.js';
import { useHarness } from '../support/harness.js';

const FILES = { feeSchedule: 111n, exchangeRate: 112n };
const T0 = 1_700_000_000_000_000_000n;

/** A file_data row: 17 update, 19 create, 16 append. */
const row = (entity: 111 | 112, offset: number, type: 16 | 17 | 19) => ({
  entity_id: entity,
  consensus_timestamp: (T0 + BigInt(offset)).toString(),
  file_data: Buffer.from([offset & 0xff]),
  transaction_type: type,
});

const ROWS = [
  row(111, 10, 19),
  row(111, 20, 16),
  row(111, 30, 16),
  row(111, 50, 17),
  row(111, 60, 16),
  row(111, 90, 17),
  row(112, 5, 16),
  row(112, 15, 19),
  row(112, 40, 17),
  row(112, 45, 16),
  row(112, 80, 17),
  row(112, 85, 16),
];

/** The first and last timestamps of a version, whichever way its key was made. */
const bounds = (v: SystemFileVersionsAt) =>
  [v.feeSchedule.key, v.exchangeRate.key].map((key) => (key === null ? null : /(\d+)\/(\d+)/.exec(key)!.slice(1, 3).join('/')));

describe('system file versions kept in the process', () => {
  const harness = useHarness();

  /** The statements `work` sends through the database. */
  const captured = async (work: (db: Queryable) => Promise<unknown>): Promise<string[]> => {
    const texts: string[] = [];
    const db = harness().db;
    await work({
      query: (text: string, values?: unknown[]) => {
        texts.push(text);
        return db.query(text, values);
      },
    } as Queryable);
    return texts;
  };

  it('finds the version the statement finds, at every timestamp up to the watermark', async () => {
    // the watermark: the newest contract result (no transaction rows here)
    await harness().prepare({
      filedata: ROWS,
      contractresults: [{ consensus_timestamp: (T0 + 100n).toString(), contract_id: 5001, payer_account_id: 8001 }],
    });
    const db = harness().db;
    const versions = new SystemFileVersions();
    for (let offset = 0; offset <= 100; offset++) {
      const at = T0 + BigInt(offset);
      assert.deepEqual(bounds(await versions.versionsAt(db, FILES, at)), bounds(await findFileVersions(db, FILES, at)), `at +${offset}`);
    }
    assert.deepEqual(bounds(await versions.versionsAt(db, FILES, T0 + 35n)), [`${T0 + 10n}/${T0 + 30n}`, `${T0 + 15n}/${T0 + 15n}`]);
    assert.deepEqual(bounds(await versions.versionsAt(db, FILES, T0 + 9n)), [null, null]);
  });

  it('reads only the rows after the watermark, once, for a later result', async () => {
    await harness().prepare({
      filedata: ROWS,
      contractresults: [{ consensus_timestamp: (T0 + 100n).toString(), contract_id: 5001, payer_account_id: 8001 }],
    });
    const db = harness().db;
    const versions = new SystemFileVersions();
    const statements = async (at: bigint) => (await captured((tapped) => versions.versionsAt(tapped, FILES, at))).length;
    assert.equal(await statements(T0 + 50n), 1);
    assert.equal(await statements(T0 + 100n), 0);
    // the importer's next record file: an exchange rate update and a contract result after it
    await db.query(`insert into file_data (consensus_timestamp, entity_id, file_data, transaction_type) values ($1, 112, '\\x01', 17)`, [
      T0 + 150n,
    ]);
    await db.query(
      `insert into contract_result (consensus_timestamp, contract_id, payer_account_id, function_parameters, gas_limit, transaction_result) values ($1, 5001, 8001, '\\x00', 1, 22)`,
      [T0 + 160n],
    );
    const later = await Promise.all([versions.versionsAt(db, FILES, T0 + 160n), versions.versionsAt(db, FILES, T0 + 155n)]);
    assert.deepEqual(later.map(bounds), [
      [`${T0 + 90n}/${T0 + 90n}`, `${T0 + 150n}/${T0 + 150n}`],
      [`${T0 + 90n}/${T0 + 90n}`, `${T0 + 150n}/${T0 + 150n}`],
    ]);
    assert.equal(await statements(T0 + 160n), 0);
    assert.deepEqual(bounds(await versions.versionsAt(db, FILES, T0 + 100n)), [`${T0 + 90n}/${T0 + 90n}`, `${T0 + 80n}/${T0 + 85n}`]);
  });

  it('looks the versions up by a statement of their own beyond every watermark', async () => {
    // no transaction and no contract result: no watermark
    await harness().prepare({ filedata: ROWS });
    const versions = new SystemFileVersions();
    const queries = await captured(async (tapped) => {
      assert.deepEqual(bounds(await versions.versionsAt(tapped, FILES, T0 + 70n)), [`${T0 + 50n}/${T0 + 60n}`, `${T0 + 40n}/${T0 + 45n}`]);
    });
    // two reads of the rows after the watermark find none; then the versions' statement
    assert.equal(queries.length, 3);
    assert.match(queries[2]!, /as fee_schedule/);
  });

  it('reads the rows anew after their maximum age, and after clear()', async () => {
    await harness().prepare({
      filedata: ROWS,
      contractresults: [{ consensus_timestamp: (T0 + 100n).toString(), contract_id: 5001, payer_account_id: 8001 }],
    });
    let now = 1_000_000;
    const versions = new SystemFileVersions(() => now, 600_000);
    const statements = async () => (await captured((tapped) => versions.versionsAt(tapped, FILES, T0 + 70n))).length;
    assert.equal(await statements(), 1);
    now += 600_000;
    assert.equal(await statements(), 0);
    now += 1;
    assert.equal(await statements(), 1);
    const before = (await versions.versionsAt(harness().db, FILES, T0 + 70n)).feeSchedule.key;
    versions.clear();
    const after = (await versions.versionsAt(harness().db, FILES, T0 + 70n)).feeSchedule.key;
    assert.notEqual(after, before, 'a version read after clear() never has a key of one read before');
  });
});
