/**
 * `lqs ingest --once` on the real stream files: every value of ../shared/streams/README.md in the
 * record_file rows and through the blocks endpoints, the transactions' types, both record stream
 * layouts, wrapped record blocks and native blocks with a trust checkpoint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { transactionTypeName } from '../../src/domain/transactionTypes.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { UserError } from '../../src/userError.js';
import { get, useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';
import { addressBookWith, bucketOf, recordStreamBucket, testBookPath } from '../support/streamBuckets.js';
import { type GroundTruth, RECORD_FILES } from '../support/streamGroundTruth.js';
import type { Harness } from '../../tools/testApp/harness.js';

const secNs = (ns: bigint) => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

/** The ground truth of the files under `prefix`, in stream order, with the index the writer anchors. */
function truths(prefix: string): (GroundTruth & { expectedIndex: bigint })[] {
  const files = RECORD_FILES.filter((f) => f.path.startsWith(prefix));
  const firstV6 = files.find((f) => f.index !== null);
  const pre = files.filter((f) => f.index === null).length;
  return files.map((f, i) => ({
    ...f,
    expectedIndex: f.index ?? (firstV6?.index !== null && firstV6 ? firstV6.index! - BigInt(pre - i) : BigInt(i)),
  }));
}

/** Checks the stored row and the API's block of each file. */
async function assertIngested(h: Harness, expected: (GroundTruth & { expectedIndex: bigint })[]) {
  const rows = await h.db.query<Record<string, any>>('select * from record_file order by consensus_end');
  assert.equal(rows.length, expected.length, 'one row per file');
  for (const [i, truth] of expected.entries()) {
    const row = rows[i]!;
    const what = truth.path;
    assert.equal(row.name, truth.name, what);
    assert.equal(row.size, truth.size, what);
    assert.equal(row.count, BigInt(truth.count), what);
    assert.equal(row.consensus_start, truth.consensusStart, what);
    assert.equal(row.consensus_end, truth.consensusEnd, what);
    assert.equal(row.index, truth.expectedIndex, what);
    assert.equal(row.version, truth.version, what);
    assert.equal(row.hash, truth.hash, what);
    assert.equal(row.prev_hash, truth.prevHash, what);
    assert.equal(row.file_hash, truth.fileHash, what);
    assert.equal(row.metadata_hash, truth.metadataHash, what);
    assert.equal(row.gas_used, truth.gasUsed, what);
    assert.deepEqual(Buffer.from(row.logs_bloom), truth.logsBloom === 'empty' ? Buffer.alloc(0) : Buffer.alloc(256), what);
    const hapi = row.hapi_version_major === null ? null : `${row.hapi_version_major}.${row.hapi_version_minor}.${row.hapi_version_patch}`;
    assert.equal(hapi, truth.hapiVersion, what);
    assert.equal(row.sidecar_count, truth.sidecars.length, what);

    const types = await h.db.query<{ type: number; n: bigint }>(
      'select type, count(*) as n from transaction where consensus_timestamp between $1 and $2 group by type',
      [truth.consensusStart, truth.consensusEnd],
    );
    const counted = Object.fromEntries(types.map((t) => [transactionTypeName(t.type), Number(t.n)]));
    assert.deepEqual(counted, truth.transactions, `${what}: transaction types`);

    const block = {
      count: truth.count,
      hapi_version: truth.hapiVersion,
      hash: `0x${truth.hash}`,
      name: truth.name,
      number: Number.isSafeInteger(Number(truth.expectedIndex)) ? Number(truth.expectedIndex) : truth.expectedIndex,
      previous_hash: `0x${truth.prevHash}`,
      size: truth.size,
      timestamp: { from: secNs(truth.consensusStart), to: secNs(truth.consensusEnd) },
      gas_used: Number(truth.gasUsed),
      logs_bloom: truth.logsBloom === 'empty' ? '0x' : `0x${'0'.repeat(512)}`,
    };
    // the API takes block numbers of 0 and more (v5v6's anchored numbers are negative): those by hash only
    if (truth.expectedIndex >= 0n) {
      const byNumber = await get(h, `/api/v1/blocks/${truth.expectedIndex}`);
      assert.equal(byNumber.status, 200, what);
      assert.deepEqual(byNumber.body, block, `${what}: /blocks/{number}`);
    }
    const byHash = await get(h, `/api/v1/blocks/0x${truth.hash}`);
    assert.deepEqual(byHash.body, block, `${what}: /blocks/{hash}`);
  }
  const unbalanced = await h.db.query(
    'select consensus_timestamp from crypto_transfer group by consensus_timestamp having sum(amount) <> 0',
  );
  assert.deepEqual(unbalanced, [], "every transaction's hbar transfers sum to zero");
  const payers = await h.db.query(
    'select t.consensus_timestamp from transaction t join crypto_transfer c using (consensus_timestamp) where c.payer_account_id <> t.payer_account_id',
  );
  assert.deepEqual(payers, [], 'transfers carry their transaction payer');
  const list = await get(h, '/api/v1/blocks?order=asc');
  assert.deepEqual(
    list.body.blocks.map((b: { hash: string }) => b.hash),
    expected.map((t) => `0x${t.hash}`),
  );
}

describe('ingesting the real stream files', () => {
  const harness = useHarness();
  let mirror = false;
  const work = mkdtempSync(join(tmpdir(), 'lqs-books-'));
  before(async () => {
    mirror = await isMirrorNodeDatabase(harness().db);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('refuses a database a mirror node importer owns, before writing anything', async (t) => {
    if (!mirror) return t.skip('the project schema: covered in test/cli/ingest.test.ts');
    const bucket = recordStreamBucket('v6');
    t.after(() => bucket.dispose());
    await assert.rejects(
      ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath('test-v6-sidecar-4n.bin') }),
      (e) => e instanceof UserError && /mirror node database/.test(e.message),
    );
  });

  const SETS: [string, string][] = [
    ['v1', 'test-v1'],
    ['v2', 'testnet'],
    ['v2v5', 'testnet'],
    ['v5', 'testnet'],
    ['v5v6', 'test-v6-4n.bin'],
    ['v6', 'test-v6-sidecar-4n.bin'],
  ];
  for (const [set, book] of SETS) {
    it(`recordstreams/${set} (ACCOUNT_ID layout): every README value, in the rows and through the API`, async (t) => {
      if (mirror) return t.skip('a mirror node database is never written');
      await harness().prepare({});
      const bucket = recordStreamBucket(set);
      t.after(() => bucket.dispose());
      const progress = await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath(book) });
      const expected = truths(`recordstreams/${set}/`);
      assert.equal(progress.files, expected.length);
      await assertIngested(harness(), expected);
    });
  }

  it('recordstreams/eth-0.26.0: each file alone, signed by its one node (a one-node book)', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    const book = addressBookWith('test-v6-4n.bin', ['0.0.3'], work);
    for (const truth of truths('recordstreams/eth-0.26.0/')) {
      await harness().prepare({});
      const bucket = recordStreamBucket('eth-0.26.0');
      t.after(() => bucket.dispose());
      for (const f of bucket.files()) if (!f.includes(truth.name)) bucket.remove(f);
      await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book });
      await assertIngested(harness(), [{ ...truth, expectedIndex: 0n }]);
    }
  });

  it('recordstreams/eth-0.26.0: the second file does not continue the first, and is refused', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = recordStreamBucket('eth-0.26.0');
    t.after(() => bucket.dispose());
    const book = addressBookWith('test-v6-4n.bin', ['0.0.3'], work);
    await assert.rejects(
      ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book }),
      (e) => e instanceof StreamFileError && /previous hash mismatch/.test(e.message),
    );
    const [first] = truths('recordstreams/eth-0.26.0/');
    await assertIngested(harness(), [{ ...first!, expectedIndex: 0n }]);
  });

  it('the NODE_ID layout (<shard>/<nodeId>/record/) gives the same rows as ACCOUNT_ID', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'hip679/provider-node-id', at: '' }]);
    t.after(() => bucket.dispose());
    const book = addressBookWith('test-v6-sidecar-4n.bin', ['0.0.3'], work);
    await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book });
    await assertIngested(harness(), truths('recordstreams/v6/'));
  });

  it('a bucket holding both layouts at once: each node read from its own (hip679/provider-auto)', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'hip679/provider-auto', at: '' }]);
    t.after(() => bucket.dispose());
    // 0.0.3 in recordstreams/record0.0.3/, node 1 (0.0.4) in demo/0/1/record/: 2 of 4 nodes sign
    await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath('test-v6-sidecar-4n.bin'), network: 'demo' });
    await assertIngested(harness(), truths('recordstreams/v6/'));
  });

  it('the NODE_ID layout under a network folder (<network>/<shard>/<nodeId>/record/, --network)', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'hip679/provider-auto-transition/demo', at: 'demo' }]);
    t.after(() => bucket.dispose());
    const book = addressBookWith('testnet', ['0.0.3'], work);
    await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book, network: 'demo' });
    await assertIngested(harness(), truths('hip679/provider-auto-transition/'));
  });

  const WRB_HASH = '420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e';
  it('a wrapped record block (mainnet block 0), verified with the bundled mainnet book', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'wrbs', at: '' }]);
    t.after(() => bucket.dispose());
    await ingestOnce(harness().db, harness().config, bucket.root, { network: 'mainnet' });
    const [row] = await harness().db.query<Record<string, any>>('select * from record_file');
    assert.equal(row?.index, 0n);
    assert.equal(row?.name, '2019-09-13T21_53_51.396440Z.rcd');
    assert.equal(row?.size, 455);
    assert.equal(row?.count, 1n);
    assert.equal(row?.consensus_start, 1568411631396440000n);
    assert.equal(row?.consensus_end, 1568411631396440000n);
    assert.equal(row?.hash, WRB_HASH);
    assert.equal(row?.prev_hash, '0'.repeat(96));
    assert.equal(row?.file_hash, WRB_HASH);
    assert.equal(row?.version, 2);
    assert.equal(row?.hapi_version_major, null);
    assert.equal(row?.metadata_hash, null);
    const block = await get(harness(), '/api/v1/blocks/0');
    assert.equal(block.body.hash, `0x${WRB_HASH}`);
    assert.equal(block.body.logs_bloom, '0x');
    assert.equal(block.body.gas_used, 0);
    const types = await harness().db.query<{ type: number }>('select type from transaction');
    assert.deepEqual(
      types.map((t) => transactionTypeName(t.type)),
      ['CRYPTOTRANSFER'],
    );
  });

  const B7 = '8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a';
  const B6 = 'e11e44567f5ca4ae23b75467b75d83c8880d0888f5c4154f08b8f221bf269b2e4f3f1686e8dcb9694beaaf287313b0fb';
  const B8 = '78ef36dc7c7cb57cfb212966b768a0fbc9b0f5045574c6b3bfa0cccdcef9401b7edda1cf05ada60dedd7e0b435e0d81d';
  const NATIVE = [
    { index: 7n, name: '0000000000000000007.blk.zstd', size: 3999, start: 1770842061390565879n, hash: B7, prev: B6, rounds: [179n, 213n] },
    { index: 8n, name: '0000000000000000008.blk.zstd', size: 3015, start: 1770842063775529380n, hash: B8, prev: B7, rounds: [214n, 248n] },
  ];

  for (const trust of [`7:${B7}`, `6:${B6}`]) {
    it(`native blocks 7 and 8 from the checkpoint --trust ${trust.slice(0, 10)}…`, async (t) => {
      if (mirror) return t.skip('a mirror node database is never written');
      await harness().prepare({});
      const bucket = bucketOf([{ shared: 'blockstreams', at: '' }]);
      t.after(() => bucket.dispose());
      await ingestOnce(harness().db, harness().config, bucket.root, { network: 'demo', trust });
      const rows = await harness().db.query<Record<string, any>>('select * from record_file order by index');
      assert.equal(rows.length, 2);
      for (const [i, want] of NATIVE.entries()) {
        const row = rows[i]!;
        assert.equal(row.index, want.index);
        assert.equal(row.name, want.name);
        assert.equal(row.size, want.size);
        assert.equal(row.count, 1n);
        assert.equal(row.consensus_start, want.start);
        assert.equal(row.consensus_end, want.start);
        assert.equal(row.hash, want.hash);
        assert.equal(row.prev_hash, want.prev);
        assert.equal(row.file_hash, '');
        assert.equal(row.version, 7);
        assert.deepEqual([row.round_start, row.round_end], want.rounds);
        assert.deepEqual([row.hapi_version_major, row.hapi_version_minor, row.hapi_version_patch], [0, 73, 0]);
        const block = await get(harness(), `/api/v1/blocks/${want.index}`);
        assert.equal(block.body.hash, `0x${want.hash}`);
        assert.equal(block.body.hapi_version, '0.73.0');
        assert.equal(block.body.logs_bloom, '0x');
      }
      const types = await harness().db.query<{ type: number }>('select type from transaction order by consensus_timestamp');
      assert.deepEqual(
        types.map((t) => transactionTypeName(t.type)),
        ['NODEUPDATE', 'CRYPTOTRANSFER'],
      );
    });
  }

  it('native blocks without a checkpoint, or with a wrong one, are refused and nothing is written', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = bucketOf([{ shared: 'blockstreams', at: '' }]);
    t.after(() => bucket.dispose());
    const refused = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);
    await assert.rejects(ingestOnce(harness().db, harness().config, bucket.root, { network: 'demo' }), refused(/--trust/));
    await assert.rejects(
      ingestOnce(harness().db, harness().config, bucket.root, { network: 'demo', trust: `7:${B6}` }),
      refused(/not the trusted/),
    );
    await assert.rejects(
      ingestOnce(harness().db, harness().config, bucket.root, { network: 'demo', trust: `6:${B7}` }),
      refused(/previous hash mismatch/),
    );
    assert.deepEqual(await harness().db.query('select * from record_file'), []);
  });
});
