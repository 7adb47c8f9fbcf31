/**
 * The balance snapshots the ingester takes at the importer's cadence (15 minutes at least, the first
 * 2 minutes after the first file), from a synthetic signed stream of files 10 minutes apart: the
 * first snapshot of the month copies every balance, the next only the changed ones and the treasury,
 * and `GET /api/v1/accounts/{id}?timestamp=` answers from them. With the network's balance files
 * ingested instead (`--balances`), none are taken.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { SNAPSHOT_INITIAL_DELAY_NS, SNAPSHOT_MIN_FREQUENCY_NS } from '../../src/ingest/state/balanceSnapshots.js';
import { get, useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';
import { writeStream } from '../../tools/stream/writeStream.js';

const MINUTE = 60_000_000_000n;
const HOLDER = encodeEntityId(0n, 0n, 900_000n);
const TOKEN = encodeEntityId(0n, 0n, 900_001n);
const TREASURY = encodeEntityId(0n, 0n, 2n);
const secNs = (ns: bigint) => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

describe('balance snapshots while ingesting', () => {
  const harness = useHarness();
  const out = mkdtempSync(join(tmpdir(), 'lqs-snapshots-'));
  let mirror = false;
  let book = '';
  before(async () => {
    mirror = await isMirrorNodeDatabase(harness().db);
    const summary = await writeStream({
      out,
      nodes: 2,
      files: 6,
      recordsPerFile: 2,
      seed: 11,
      keyBits: 2048,
      fileIntervalNs: 10n * MINUTE,
    });
    book = join(out, summary.addressBook);
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  /** An account and a token account the stream never touches, as if they were in the ledger before it. */
  async function holdings() {
    await harness().db.exec(
      `insert into entity (id, num, realm, shard, balance, balance_timestamp, type, timestamp_range, created_timestamp)
         values (${HOLDER}, 900000, 0, 0, 4242, 1, 'ACCOUNT', '[1,)', 1);
       insert into token_account (account_id, token_id, associated, balance, balance_timestamp, timestamp_range, created_timestamp)
         values (${HOLDER}, ${TOKEN}, true, 17, 1, '[1,)', 1)`,
    );
  }

  it('takes them at the cadence: every balance first, then the changed ones and the treasury', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    await holdings();
    const progress = await ingestOnce(harness().db, harness().config, out, { addressBook: book });
    assert.equal(progress.files, 6);
    const ends = (await harness().db.query<{ consensus_end: bigint }>('select consensus_end from record_file order by 1')).map(
      (r) => r.consensus_end,
    );
    // due when the end is 15 minutes past the last snapshot, the first counted from the first end + 2 minutes
    const due: bigint[] = [];
    let since = ends[0]! + SNAPSHOT_INITIAL_DELAY_NS;
    for (const end of ends) {
      if (end - since >= SNAPSHOT_MIN_FREQUENCY_NS) {
        due.push(end);
        since = end;
      }
    }
    assert.deepEqual(due, [ends[2], ends[4]]);
    const files = await harness().db.query<{ consensus_timestamp: bigint; synthetic: boolean; count: bigint; name: string }>(
      'select consensus_timestamp, synthetic, count, name from account_balance_file order by 1',
    );
    assert.deepEqual(
      files.map((f) => [f.consensus_timestamp, f.synthetic]),
      due.map((ts) => [ts, true]),
    );
    assert.match(files[0]!.name, /^\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d\.\d{9}Z_Balances\.pb\.gz$/);

    const rows = async (ts: bigint, table: string) =>
      (await harness().db.query<{ account_id: bigint }>(`select account_id from ${table} where consensus_timestamp = $1`, [ts])).map(
        (r) => r.account_id,
      );
    const first = await rows(due[0]!, 'account_balance');
    assert.ok(first.includes(HOLDER) && first.includes(TREASURY), 'the first snapshot of the month copies every balance');
    assert.equal(BigInt(first.length), files[0]!.count);
    const second = await rows(due[1]!, 'account_balance');
    assert.ok(second.includes(TREASURY) && !second.includes(HOLDER), 'the next one the treasury and the changed balances only');
    assert.deepEqual(await rows(due[0]!, 'token_balance'), [HOLDER]);
    assert.deepEqual(await rows(due[1]!, 'token_balance'), []);

    // the balance as of a time between the snapshots, and after the second (unchanged since the first)
    for (const at of [due[0]! + MINUTE, due[1]! + MINUTE]) {
      const res = await get(harness(), `/api/v1/accounts/0.0.900000?timestamp=${secNs(at)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.balance, {
        balance: 4242,
        timestamp: secNs(at < due[1]! ? due[0]! : due[1]!),
        tokens: [{ token_id: '0.0.900001', balance: 17 }],
      });
    }
    // before the first snapshot there is none to answer from: the version's own balance, no tokens
    const before = await get(harness(), `/api/v1/accounts/0.0.900000?timestamp=${secNs(ends[1]!)}`);
    assert.equal(before.body.balance.tokens.length, 0);
  });

  it('takes none when the balance files are ingested instead', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    await holdings();
    const progress = await ingestOnce(harness().db, harness().config, out, { addressBook: book, balances: true });
    assert.equal(progress.files, 6);
    const [files] = await harness().db.query<{ n: bigint }>('select count(*) as n from account_balance_file');
    assert.equal(files!.n, 0n);
  });
});
