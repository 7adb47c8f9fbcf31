/**
 * Mainnet's errata through `lqs ingest`: on a signed synthetic stream of 2026 ingested as network
 * `mainnet` with the errata folder ../shared/streams/errata/mainnet, the first file takes every
 * missing transaction (all before it) with `errata = 'INSERT'` rows, the next files none; as
 * `mainnet` without the folder, or as `testnet`, none; a bad folder is refused and nothing written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { readMainnetErrata } from '../../src/ingest/errata/mainnetErrataFiles.js';
import { UserError } from '../../src/userError.js';
import { writeStream } from '../../tools/stream/writeStream.js';
import { useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

describe('mainnet errata while ingesting', () => {
  const harness = useHarness();
  const out = mkdtempSync(join(tmpdir(), 'lqs-errata-'));
  const errata = join(STREAMS_DIR, 'errata', 'mainnet');
  let mirror = false;
  let book = '';
  before(async () => {
    mirror = await isMirrorNodeDatabase(harness().db);
    book = join(out, (await writeStream({ out, nodes: 2, files: 3, recordsPerFile: 4, seed: 5, keyBits: 2048 })).addressBook);
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  async function errataCounts() {
    const [row] = await harness().db.query<{ transactions: bigint; transfers: bigint; amount: string | null; other: bigint }>(
      `select (select count(*) from transaction where errata = 'INSERT') as transactions,
              (select count(*) from crypto_transfer where errata = 'INSERT') as transfers,
              (select sum(amount)::text from crypto_transfer where errata = 'INSERT') as amount,
              (select count(*) from transaction where errata is not null and errata <> 'INSERT') as other`,
    );
    return row!;
  }

  it('mainnet: the 113 missing transactions go in with the first file, marked INSERT', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const progress = await ingestOnce(harness().db, harness().config, out, { addressBook: book, network: 'mainnet', errata });
    assert.equal(progress.files, 3);
    assert.equal(progress.records, 12, 'the files count their own records only');
    const expected = readMainnetErrata(errata).missingTransactions;
    const counts = await errataCounts();
    assert.equal(counts.transactions, BigInt(expected.length));
    assert.equal(counts.other, 0n);
    assert.ok(counts.transfers > 0n);
    assert.equal(counts.amount, '0', 'their transfers balance out');
    const stamps = await harness().db.query<{ consensus_timestamp: bigint }>(
      "select consensus_timestamp from transaction where errata = 'INSERT' order by 1",
    );
    assert.deepEqual(
      stamps.map((s) => s.consensus_timestamp),
      expected.map((e) => e.consensusTimestamp),
    );
    // a second run over the same source adds nothing
    await ingestOnce(harness().db, harness().config, out, { addressBook: book, network: 'mainnet', errata });
    assert.equal((await errataCounts()).transactions, BigInt(expected.length));
  });

  it('mainnet without the errata folder: no missing transactions', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const progress = await ingestOnce(harness().db, harness().config, out, { addressBook: book, network: 'mainnet' });
    assert.equal(progress.files, 3);
    const counts = await errataCounts();
    assert.deepEqual([counts.transactions, counts.transfers], [0n, 0n]);
  });

  it('a bad errata folder, or errata for another network: refused, nothing written', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bad = join(out, 'errata');
    mkdirSync(join(bad, 'missingtransactions'), { recursive: true });
    writeFileSync(join(bad, 'balance-offsets.txt'), 'not a timestamp\n');
    for (const [network, folder, message] of [
      ['mainnet', bad, /^errata folder .*: balance-offsets\.txt line 1 is not a consensus timestamp/],
      ['mainnet', join(out, 'none'), /^errata folder .*none: the folder is missing/],
      ['testnet', errata, /are mainnet's: they need --network mainnet \(ingest\.network\), not 'testnet'$/],
    ] as const) {
      await assert.rejects(ingestOnce(harness().db, harness().config, out, { addressBook: book, network, errata: folder }), (e) => {
        assert.ok(e instanceof UserError);
        assert.match(e.message, message);
        return true;
      });
    }
    const [row] = await harness().db.query<{ files: bigint; transactions: bigint }>(
      'select (select count(*) from record_file) as files, (select count(*) from transaction) as transactions',
    );
    assert.deepEqual([row!.files, row!.transactions], [0n, 0n]);
  });

  it('testnet: no errata', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    await ingestOnce(harness().db, harness().config, out, { addressBook: book, network: 'testnet' });
    const counts = await errataCounts();
    assert.deepEqual([counts.transactions, counts.transfers], [0n, 0n]);
  });
});
