/**
 * The importer's verification scenarios on real files (../shared/streams/README.md, "Signature and
 * consensus scenarios"): each accepted or refused as the importer does, a refusal naming the file in
 * one line and leaving the database as it was; and resuming after a stop.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { ingest } from '../../src/ingest/ingester.js';
import { prepareIngestion } from '../../src/ingest/setup.js';
import { StreamSourceError } from '../../src/ingest/sources/source.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { parseAddressBook } from '../../src/ingest/verification/addressBook.js';
import { useHarness } from '../support/harness.js';
import { ingestOnce, writtenRows } from '../support/ingestRun.js';
import { addressBookWith, type Bucket, recordStreamBucket, testBookPath } from '../support/streamBuckets.js';

const V6_BOOK = testBookPath('test-v6-sidecar-4n.bin');
const V6_FIRST = '2022-07-13T08_46_08.041986003Z.rcd.gz';
const isData = (f: string) => /\.rcd(\.gz)?$/.test(f) && !f.includes('/sidecar/');
const isSignature = (f: string) => f.endsWith('_sig');

describe('ingestion: verification and resuming', () => {
  const harness = useHarness();
  let mirror = false;
  const work = mkdtempSync(join(tmpdir(), 'lqs-books-'));
  before(async () => {
    mirror = await isMirrorNodeDatabase(harness().db);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  function v6(t: { after(fn: () => void): void }, change: (b: Bucket) => void = () => {}): Bucket {
    const bucket = recordStreamBucket('v6');
    t.after(() => bucket.dispose());
    change(bucket);
    return bucket;
  }

  async function storedNames(): Promise<string[]> {
    return (await harness().db.query<{ name: string }>('select name from record_file order by consensus_end')).map((r) => r.name);
  }

  /** Runs --once, expecting a refusal matching `pattern` in one line that names a file, and no change to the rows. */
  async function refused(source: string, pattern: RegExp, book = V6_BOOK): Promise<void> {
    const before = await writtenRows(harness().db);
    await assert.rejects(ingestOnce(harness().db, harness().config, source, { addressBook: book }), (e: unknown) => {
      assert.ok(e instanceof StreamFileError, String(e));
      assert.match(e.message, pattern);
      assert.match(e.message, /^\S+\.rcd(\.gz)?(_sig)?: /, 'the line starts with the file');
      assert.doesNotMatch(e.message, /\n/, 'one line');
      return true;
    });
    assert.deepEqual(await writtenRows(harness().db), before, 'nothing partial written');
  }

  const cases: { name: string; change: (b: Bucket) => void; book?: () => string; accepted: number; refusal?: RegExp }[] = [
    { name: 'all nodes present', change: () => {}, accepted: 2 },
    { name: "one node's files missing (3 of 4 sign)", change: (b) => b.remove('recordstreams/record0.0.6'), accepted: 2 },
    {
      name: 'exactly one third of the stake (1 of a 3-node book)',
      change: (b) => b.removeEach((f) => !f.startsWith('recordstreams/record0.0.3/')),
      book: () => addressBookWith('test-v6-sidecar-4n.bin', ['0.0.3', '0.0.4', '0.0.5'], work),
      accepted: 2,
    },
    {
      name: 'fewer than a third (1 of 4 nodes)',
      change: (b) => b.removeEach((f) => !f.startsWith('recordstreams/record0.0.3/')),
      accepted: 0,
      refusal: /consensus not reached: verified signatures hold 1 of 4 stake, 2 needed/,
    },
    {
      name: "a bad signature from one node (its signature files' last byte changed)",
      change: (b) =>
        b.rewriteEach(
          (f) => f.includes('record0.0.4/') && isSignature(f),
          (x) => Buffer.concat([x.subarray(0, -1), Buffer.from([x[x.length - 1]! ^ 0xff])]),
        ),
      accepted: 2,
    },
    {
      name: "one node's data files corrupted (another node's copy is taken)",
      change: (b) =>
        b.rewriteEach(
          (f) => f.includes('record0.0.3/') && isData(f),
          (x) => Buffer.concat([x, Buffer.from('corrupt')]),
        ),
      accepted: 2,
    },
    {
      name: "every node's signature file with bytes appended",
      change: (b) => b.rewriteEach(isSignature, (x) => Buffer.concat([x, Buffer.from('corrupt')])),
      accepted: 0,
      refusal: /signature|consensus/,
    },
    {
      name: 'data files without signature files',
      change: (b) => b.removeEach(isSignature),
      accepted: 0,
      refusal: /no readable signature file/,
    },
    {
      name: 'truncated data files (cut to 48 bytes)',
      change: (b) => b.rewriteEach(isData, (x) => x.subarray(0, 48)),
      accepted: 0,
      refusal: /no node's copy can be accepted/,
    },
    {
      name: 'garbage appended to every data file',
      change: (b) => b.rewriteEach(isData, (x) => Buffer.concat([x, Buffer.from('corrupt')])),
      accepted: 0,
      refusal: /not a valid gzip file|unexpected bytes after the end of the gzip content/,
    },
    {
      name: 'sidecars whose hash differs from the one the record file lists',
      change: (b) =>
        b.rewriteEach(
          (f) => f.includes('/sidecar/'),
          () => gzipSync(Buffer.from('another sidecar')),
        ),
      accepted: 1,
      refusal: /sidecar hash [0-9a-f]+ differs/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.accepted === 2 ? 'accepted' : c.accepted === 1 ? 'stops at the file' : 'refused, nothing written'}`, async (t) => {
      if (mirror) return t.skip('a mirror node database is never written');
      await harness().prepare({});
      const bucket = v6(t, c.change);
      const book = c.book?.() ?? V6_BOOK;
      if (c.refusal) {
        if (c.accepted > 0) {
          // the first file is written by a run that ends at the second
          await assert.rejects(ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book }), StreamFileError);
          assert.deepEqual(await storedNames(), [V6_FIRST]);
        }
        await refused(bucket.root, c.refusal, book);
        assert.equal((await storedNames()).length, c.accepted);
      } else {
        await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: book });
        assert.equal((await storedNames()).length, c.accepted);
      }
    });
  }

  it('a file whose previous hash is not the last stored hash is refused', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const v5 = recordStreamBucket('v5');
    t.after(() => v5.dispose());
    await ingestOnce(harness().db, harness().config, v5.root, { addressBook: testBookPath('testnet') });
    assert.equal((await storedNames()).length, 2);
    await refused(v6(t).root, /previous hash mismatch/);
  });

  it('an unknown record file version is refused', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const v2 = recordStreamBucket('v2');
    t.after(() => v2.dispose());
    for (const f of v2.files().filter(isData)) v2.rewrite(f, (x) => Buffer.concat([Buffer.from([0, 0, 0, 9]), x.subarray(4)]));
    await refused(v2.root, /unknown record file version 9/, testBookPath('testnet'));
  });

  it('garbage appended to an uncompressed record file (v2) is refused', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const v2 = recordStreamBucket('v2');
    t.after(() => v2.dispose());
    for (const f of v2.files().filter(isData)) v2.rewrite(f, (x) => Buffer.concat([x, Buffer.from([0, 1, 2, 3])]));
    await refused(v2.root, /no node's copy can be accepted/, testBookPath('testnet'));
  });

  it('while following, a refused file is retried with backoff and reported, and taken once it is good', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = v6(t);
    const second = (f: string) => f.includes('2022-07-13T08_46_11.304284003Z.rcd.gz') && !f.includes('/sidecar/');
    const originals = new Map(
      bucket
        .files()
        .filter(second)
        .map((f) => [f, readFileSync(bucket.path(f))]),
    );
    bucket.rewriteEach(second, (x) => Buffer.concat([x, Buffer.from('corrupt')]));
    const stop = new AbortController();
    const refusals: { file: string; retryMs: number | null }[] = [];
    const prepared = await prepareIngestion(harness().db, harness().config, {
      ...harness().config.ingest,
      source: bucket.root,
      addressBook: V6_BOOK,
    });
    const progress = await ingest(harness().db, {
      ...prepared,
      once: false,
      pollMs: 10,
      maxPollMs: 40,
      signal: stop.signal,
      events: {
        refused: (e, retryMs) => {
          refusals.push({ file: e.file, retryMs });
          // repaired after the third look: the stall ends by itself
          if (refusals.length === 3) for (const [f, bytes] of originals) writeFileSync(bucket.path(f), bytes);
        },
        written: (_file, p) => {
          if (p.files === 2) stop.abort();
        },
      },
    });
    assert.deepEqual(
      refusals.map((r) => r.retryMs),
      [10, 20, 40],
      'backoff doubling up to maxPollMs',
    );
    assert.ok(refusals.every((r) => r.file === '2022-07-13T08_46_11.304284003Z.rcd.gz'));
    assert.equal(progress.files, 2);
    assert.equal(progress.failures, 0, 'the stall is over');
    assert.equal((await storedNames()).length, 2);
  });

  it('while following, a source that fails to list is retried with backoff and reported, not a refusal', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = v6(t);
    const prepared = await prepareIngestion(harness().db, harness().config, {
      ...harness().config.ingest,
      source: bucket.root,
      addressBook: V6_BOOK,
    });
    const local = prepared.source;
    // the source answers its top folder, then fails three listings (a bucket unreachable for a while)
    let failing = 3;
    const source = {
      description: local.description,
      folders: (prefix: string) => local.folders(prefix),
      list: async (prefix: string, options?: Parameters<typeof local.list>[1]) => {
        if (failing > 0) {
          failing--;
          throw new StreamSourceError(`${local.description}: listing '${prefix}' failed: ECONNREFUSED`);
        }
        return local.list(prefix, options);
      },
      read: (key: string) => local.read(key),
      close: () => local.close(),
    };
    const stop = new AbortController();
    const unavailable: number[] = [];
    let refusals = 0;
    const progress = await ingest(harness().db, {
      ...prepared,
      source,
      once: false,
      pollMs: 10,
      maxPollMs: 40,
      signal: stop.signal,
      events: {
        refused: () => refusals++,
        unavailable: (e, retryMs) => {
          assert.match(e.message, /ECONNREFUSED/);
          unavailable.push(retryMs);
        },
        written: (_file, p) => {
          if (p.files === 2) stop.abort();
        },
      },
    });
    assert.deepEqual(unavailable, [10, 20, 40], 'backoff doubling up to maxPollMs');
    assert.equal(refusals, 0);
    assert.equal(progress.files, 2);
    assert.equal((await storedNames()).length, 2);
    // with --once the same failure ends the run
    failing = 1;
    await harness().prepare({});
    await assert.rejects(ingest(harness().db, { ...prepared, source, once: true }), StreamSourceError);
    assert.deepEqual(await storedNames(), []);
  });

  it("a bundled book is the one in force at the first file's time on an empty database", async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    await harness().prepare({});
    const bucket = v6(t);
    const asked: bigint[] = [];
    const prepared = await prepareIngestion(harness().db, harness().config, {
      ...harness().config.ingest,
      source: bucket.root,
      addressBook: testBookPath('testnet'),
    });
    const progress = await ingest(harness().db, {
      ...prepared,
      once: true,
      bookAt: (start) => {
        asked.push(start);
        return parseAddressBook(readFileSync(V6_BOOK), 'v6');
      },
    });
    assert.deepEqual(asked, [1_657_701_968_041_986_003n], "the first file's time");
    assert.equal(progress.files, 2, 'verified with the book in force then, not the initial one');
  });

  it('the address book the stream published (file 0.0.102) replaces the initial one', async (t) => {
    if (mirror) return t.skip('a mirror node database is never written');
    const bucket = v6(t);
    const right = readFileSync(V6_BOOK);
    const storeBook = async (parts: Buffer[]) => {
      await harness().prepare({});
      for (const [i, part] of parts.entries()) {
        await harness().db.query(
          'insert into file_data (consensus_timestamp, entity_id, file_data, transaction_type) values ($1, $2, $3, $4)',
          [1_600_000_000_000_000_000n + BigInt(i), 102n, part, i === 0 ? 19 : 16],
        );
      }
    };
    // a stored book with other keys: the given (right) one is not used
    await storeBook([readFileSync(testBookPath('testnet'))]);
    await refused(bucket.root, /consensus not reached/);
    // the right book, written as an update and an append, over a wrong initial one
    await storeBook([right.subarray(0, 1000), right.subarray(1000)]);
    await ingestOnce(harness().db, harness().config, bucket.root, { addressBook: testBookPath('testnet') });
    assert.equal((await storedNames()).length, 2);
  });

  for (const [set, book] of [
    ['v6', 'test-v6-sidecar-4n.bin'],
    ['v2v5', 'testnet'],
    ['v5v6', 'test-v6-4n.bin'],
  ] as const) {
    it(`resumes after a stop (${set}): the rows equal a run without the stop`, async (t) => {
      if (mirror) return t.skip('a mirror node database is never written');
      const bucket = recordStreamBucket(set);
      t.after(() => bucket.dispose());
      const options = { addressBook: testBookPath(book) };
      await harness().prepare({});
      await ingestOnce(harness().db, harness().config, bucket.root, options);
      const whole = await writtenRows(harness().db);
      assert.equal(whole.record_file!.length, 2);

      await harness().prepare({});
      const stop = new AbortController();
      const first = await ingestOnce(harness().db, harness().config, bucket.root, {
        ...options,
        signal: stop.signal,
        events: { written: () => stop.abort() },
      });
      assert.equal(first.files, 1, 'stopped after the first file');
      const second = await ingestOnce(harness().db, harness().config, bucket.root, options);
      assert.equal(second.files, 1, 'the second run writes only the second file');
      const third = await ingestOnce(harness().db, harness().config, bucket.root, options);
      assert.equal(third.files, 0, 'nothing new: nothing written again');
      assert.deepEqual(await writtenRows(harness().db), whole);
    });
  }
});
