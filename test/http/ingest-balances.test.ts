/**
 * `lqs ingest --balances` on the real balance files of ../shared/streams/accountBalances: the
 * signed files give `account_balance_file`, `account_balance` and `token_balance` rows (the hbar of
 * each file summing to 50 billion hbar), a tampered file is refused, the `.pb.gz` of the mixed
 * folder is taken and not its empty `.csv` decoy, the first file is the starting state of
 * `entity.balance`, and `GET /api/v1/accounts/{id}?timestamp=` answers from the files.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { readBalanceFile } from '../../src/ingest/readers/balanceFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { writeBalanceFile } from '../../src/ingest/writers/balanceFileWriter.js';
import { get, useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';
import { bucketOf, testBookPath } from '../support/streamBuckets.js';
import { streamFile } from '../support/streamGroundTruth.js';

const FIFTY_BILLION_HBAR = 5_000_000_000_000_000_000n;
const V1_FIRST = 1567188900016002001n;
const V1_SECOND = 1567189800010147001n;

describe('ingesting the balance files', () => {
  const harness = useHarness();
  let mirror = false;
  before(async () => {
    mirror = await isMirrorNodeDatabase(harness().db);
  });

  async function sumsByFile() {
    return harness().db.query<{ consensus_timestamp: bigint; n: bigint; total: string }>(
      'select consensus_timestamp, count(*) as n, sum(balance)::text as total from account_balance group by consensus_timestamp order by 1',
    );
  }

  it('v1 beside the v2 record streams: 2 signed files of 25,391 accounts summing to 50 billion hbar, the first the starting balances', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([
      { shared: 'recordstreams/v2', at: 'recordstreams' },
      { shared: 'accountBalances/v1', at: 'accountBalances' },
    ]);
    t.after(() => bucket.dispose());
    const progress = await ingestOnce(harness().db, harness().config, bucket.root, {
      addressBook: testBookPath('testnet'),
      balances: true,
    });
    assert.equal(progress.files, 2);
    assert.equal(progress.balanceFiles, 2);

    assert.deepEqual(
      (await sumsByFile()).map((r) => [r.consensus_timestamp, r.n, BigInt(r.total)]),
      [
        [V1_FIRST, 25_391n, FIFTY_BILLION_HBAR],
        [V1_SECOND, 25_391n, FIFTY_BILLION_HBAR],
      ],
    );
    const files = await harness().db.query<Record<string, unknown>>(
      'select consensus_timestamp, count, name, file_hash, time_offset, synthetic from account_balance_file order by 1',
    );
    assert.equal(files.length, 2);
    assert.deepEqual(
      files.map((f) => [f.name, f.count, f.time_offset, f.synthetic, (f.file_hash as string).length]),
      [
        ['2019-08-30T18_15_00.016002001Z_Balances.csv', 25_391n, 0, false, 96],
        ['2019-08-30T18_30_00.010147001Z_Balances.csv', 25_391n, 0, false, 96],
      ],
    );
    // the first file (18:15), after the record files (18:10) whose transfers it already holds, is the starting state
    const [entity] = await harness().db.query<{ n: bigint; total: string }>(
      "select count(*) as n, sum(balance)::text as total from entity where type = 'ACCOUNT'",
    );
    assert.equal(BigInt(entity!.total), FIFTY_BILLION_HBAR);
    assert.ok(entity!.n >= 25_391n);

    // 0.0.3 holds 235713285725910423 at 18:15 and 235713285726037602 at 18:30
    const at = async (seconds: string) => (await get(harness(), `/api/v1/accounts/0.0.3?timestamp=${seconds}`)).body.balance;
    assert.deepEqual(await at('1567189200'), { balance: 235713285725910423n, timestamp: '1567188900.016002001', tokens: [] });
    assert.deepEqual(await at('1567190100'), { balance: 235713285726037602n, timestamp: '1567189800.010147001', tokens: [] });
    const current = await get(harness(), '/api/v1/accounts/0.0.3');
    assert.equal(current.status, 200);
    assert.equal(current.body.balance.balance, 235713285725910423n, 'the starting state; later files are snapshots only');

    // a second run finds nothing new
    const again = await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath('testnet'), balances: true });
    assert.equal(again.balanceFiles, 0);
  });

  it('refuses a balance file whose content is not what the nodes signed, writing nothing', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'accountBalances/v1', at: 'accountBalances' }]);
    t.after(() => bucket.dispose());
    // one tinybar more for 0.0.3 in every node's copy: a well-formed file the nodes did not sign
    bucket.rewriteEach(
      (p) => p.endsWith('18_15_00.016002001Z_Balances.csv'),
      (bytes) => Buffer.from(bytes.toString().replace('\n0,0,3,235713285725910423\n', '\n0,0,3,235713285725910424\n')),
    );
    await assert.rejects(
      ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath('testnet'), balances: true }),
      (e) =>
        e instanceof StreamFileError &&
        /18_15_00\.016002001Z_Balances\.csv/.test(e.message) &&
        /not the one the nodes signed/.test(e.message),
    );
    assert.deepEqual(await sumsByFile(), []);
    const [files] = await harness().db.query<{ n: bigint }>('select count(*) as n from account_balance_file');
    assert.equal(files!.n, 0n);
  });

  it('mixed: takes the signed .pb.gz, not the empty .csv decoy: 2,485 accounts and 412 token balances per file', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'accountBalances/mixed', at: 'accountBalances' }]);
    t.after(() => bucket.dispose());
    const progress = await ingestOnce(harness().db, harness().config, bucket.root, {
      addressBook: testBookPath('testnet'),
      balances: true,
    });
    assert.equal(progress.balanceFiles, 2);
    const sums = await sumsByFile();
    assert.deepEqual(
      sums.map((r) => [r.n, BigInt(r.total)]),
      [
        [2_485n, FIFTY_BILLION_HBAR],
        [2_485n, FIFTY_BILLION_HBAR],
      ],
    );
    const tokens = await harness().db.query<{ n: bigint }>(
      'select count(*) as n from token_balance group by consensus_timestamp order by consensus_timestamp',
    );
    assert.deepEqual(
      tokens.map((r) => r.n),
      [412n, 412n],
    );
    const names = await harness().db.query<{ name: string }>('select name from account_balance_file order by consensus_timestamp');
    assert.ok(names.every((r) => r.name.endsWith('_Balances.pb.gz')));
    // the token balances of the first file are the starting state of token_account
    const [ta] = await harness().db.query<{ n: bigint }>('select count(*) as n from token_account where associated');
    assert.equal(ta!.n, 412n);
  });

  it('v2 CSV and the protobuf file give their token balances as token_balance rows', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    for (const path of [
      'accountBalances/v2/balance0.0.3/2020-09-22T04_25_00.083212003Z_Balances.csv',
      'accountBalances/proto/2021-03-08T20_15_00Z_Balances.pb.gz',
    ]) {
      // these two files come without signature files: written as a verified file would be
      const file = readBalanceFile(path, streamFile(path));
      await writeBalanceFile(harness().db, { file, fileHash: '00'.repeat(48) }, null);
      const expected = new Set(file.accounts.flatMap((a) => a.tokens.map((tb) => `${a.accountId}:${tb.tokenId}:${tb.balance}`)));
      const rows = await harness().db.query<{ account_id: bigint; token_id: bigint; balance: bigint }>(
        'select account_id, token_id, balance from token_balance where consensus_timestamp = $1',
        [file.consensusTimestamp],
      );
      assert.ok(rows.length > 0, path);
      assert.deepEqual(new Set(rows.map((r) => `${r.account_id}:${r.token_id}:${r.balance}`)), expected, path);
    }
    const [proto] = await harness().db.query<{ n: bigint; total: string }>(
      'select count(*) as n, sum(balance)::text as total from account_balance where consensus_timestamp = 1615234500000000000',
    );
    assert.deepEqual([proto!.n, proto!.total], [10n, '30045']);
  });
});
