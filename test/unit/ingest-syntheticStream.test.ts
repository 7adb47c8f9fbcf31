/**
 * The synthetic signed record stream of the tools (`stream`): the service's readers and verification
 * accept every file and every node's signature, the chain holds from file to file, and a tampered copy
 * or a file re-signed with a key outside the address book is refused.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { transactionTypeOf } from '../../src/ingest/proto/transactionBody.js';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import { LocalSource } from '../../src/ingest/sources/local.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { acceptRecordFile, type DownloadedCopy } from '../../src/ingest/verification/acceptRecordFile.js';
import { type AddressBook, nodeOfAccount, parseAddressBook } from '../../src/ingest/verification/addressBook.js';
import { type NodeSignature, reachConsensus } from '../../src/ingest/verification/consensus.js';
import { checkPreviousHash } from '../../src/ingest/verification/fileHashes.js';
import { TransactionType } from '../../src/domain/transactionTypes.js';
import { readRecordOutcome } from '../../src/ingest/proto/transactionDetails.js';
import { writeSignatureFileV6 } from '../../tools/stream/recordFileV6.js';
import { TransactionGenerator } from '../../tools/stream/transactions.js';
import { type StreamSummary, writeStream } from '../../tools/stream/writeStream.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);

describe('synthetic signed record stream', () => {
  let out: string;
  let summary: StreamSummary;
  let book: AddressBook;
  let source: LocalSource;

  before(async () => {
    out = await mkdtemp(join(tmpdir(), 'lqs-stream-'));
    // 2048-bit keys keep the test quick; the command's default is the network's 3072
    summary = await writeStream({ out, nodes: 4, files: 6, recordsPerFile: 40, seed: 7, keyBits: 2048, firstBlock: 5000n });
    book = parseAddressBook(await readFile(join(out, summary.addressBook)), summary.addressBook);
    source = new LocalSource(out);
  });
  after(() => rm(out, { recursive: true, force: true }));

  async function nodeFiles(name: string): Promise<{ copies: DownloadedCopy[]; signatures: NodeSignature[] }> {
    const copies: DownloadedCopy[] = [];
    const signatures: NodeSignature[] = [];
    for (const folder of await source.folders('recordstreams/')) {
      const account = /record(\d+\.\d+\.\d+)\/$/.exec(folder)![1]!;
      const key = `${folder}${name}`;
      copies.push({ name: key, bytes: (await source.read(key))! });
      const sigKey = key.replace(/\.gz$/, '') + '_sig';
      signatures.push({ nodeId: nodeOfAccount(book, account)!.nodeId, signature: readSignatureFile(sigKey, (await source.read(sigKey))!) });
    }
    return { copies, signatures };
  }

  it('lays the files out as a bucket: one folder per node account, a copy and a signature file of each file in each', async () => {
    assert.deepEqual(await source.folders('recordstreams/'), [
      'recordstreams/record0.0.3/',
      'recordstreams/record0.0.4/',
      'recordstreams/record0.0.5/',
      'recordstreams/record0.0.6/',
    ]);
    assert.equal(book.nodes.size, 4);
    assert.deepEqual(
      [...book.nodes.values()].map((n) => [n.nodeId, n.accountId]),
      [
        [0n, '0.0.3'],
        [1n, '0.0.4'],
        [2n, '0.0.5'],
        [3n, '0.0.6'],
      ],
    );
    const keys = (await source.list('recordstreams/record0.0.5/')).map((o) => o.key.slice('recordstreams/record0.0.5/'.length));
    assert.deepEqual(
      keys,
      summary.names.flatMap((n) => [n, n.replace(/\.gz$/, '_sig')]),
    );
  });

  it('every file is read, every signature verifies, hashes match, the chain holds from the first previous hash', async () => {
    let expectedPrev: Buffer = Buffer.from(summary.firstPrevHash, 'hex');
    let lastEnd = 0n;
    const types = new Map<number, number>();
    for (const [i, name] of summary.names.entries()) {
      const { copies, signatures } = await nodeFiles(name);
      const consensus = reachConsensus(name, signatures, book);
      assert.deepEqual(consensus.signers, [0n, 1n, 2n, 3n], name);
      assert.deepEqual(consensus.rejected, []);
      const file = acceptRecordFile(copies, consensus, expectedPrev);
      assert.equal(file.version, 6);
      assert.equal(file.name, name);
      assert.equal(file.count, 40);
      assert.equal(file.index, 5000n + BigInt(i));
      assert.deepEqual(file.hapiVersion, { major: 0, minor: 56, patch: 0 });
      assert.ok(file.consensusStart > lastEnd && file.consensusEnd >= file.consensusStart, name);
      assert.equal(file.size, copies[0]!.bytes.length);
      // the file hash is SHA-384 of the gunzipped bytes, the hash the end running hash
      assert.deepEqual(file.fileHash, createHash('sha384').update(gunzipSync(copies[0]!.bytes)).digest());
      assert.deepEqual(file.prevHash, expectedPrev);
      for (const item of file.items) {
        const type = transactionTypeOf(item.transactionBytes)!;
        types.set(type, (types.get(type) ?? 0) + 1);
        assert.ok(item.consensusTimestamp >= file.consensusStart && item.consensusTimestamp <= file.consensusEnd);
      }
      lastEnd = file.consensusEnd;
      expectedPrev = file.hash;
    }
    assert.equal(expectedPrev.toString('hex'), summary.lastHash);
    assert.deepEqual([...types.keys()].sort(), [TransactionType.CRYPTOTRANSFER, TransactionType.CONSENSUSSUBMITMESSAGE].sort());
    assert.equal(
      [...types.values()].reduce((a, b) => a + b, 0),
      6 * 40,
    );
  });

  it('a copy with one flipped byte is refused, and the same file from the other nodes is accepted', async () => {
    const name = summary.names[1]!;
    const { copies, signatures } = await nodeFiles(name);
    const consensus = reachConsensus(name, signatures, book);
    const content = gunzipSync(copies[0]!.bytes);
    content[content.length - 60]! ^= 0x01;
    const tampered = { name: copies[0]!.name, bytes: gzipSync(content) };
    assert.throws(() => acceptRecordFile([tampered], consensus, null), refusal(/file hash .* differs from the signed/));
    const flippedGzip = Buffer.from(copies[0]!.bytes);
    flippedGzip[flippedGzip.length - 20]! ^= 0x01;
    assert.throws(() => acceptRecordFile([{ name: tampered.name, bytes: flippedGzip }], consensus, null), refusal(/no copy matches/));
    const file = acceptRecordFile([tampered, ...copies.slice(1)], consensus, null);
    assert.equal(file.count, 40);
  });

  it('a tampered file re-signed by every node with keys outside the address book reaches no consensus', async () => {
    const name = summary.names[2]!;
    const { copies, signatures } = await nodeFiles(name);
    const content = gunzipSync(copies[0]!.bytes);
    content[content.length - 100]! ^= 0x01;
    const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = readRecordFile(name, gzipSync(content));
    const resigned = signatures.map(({ nodeId }) => ({
      nodeId,
      signature: readSignatureFile(`${name}_sig`, writeSignatureFileV6(forged.fileHash, forged.metadataHash!, rogue)),
    }));
    assert.throws(
      () => reachConsensus(name, resigned, book),
      refusal(/consensus not reached: verified signatures hold 0 of 4 stake, 2 needed .*node 0: file hash signature does not verify/),
    );
    // one node re-signed with the rogue key: the other three still carry the genuine file
    const mixed = [resigned[0]!, ...signatures.slice(1)];
    const consensus = reachConsensus(name, mixed, book);
    assert.deepEqual(consensus.signers, [1n, 2n, 3n]);
    assert.deepEqual(consensus.rejected, [{ nodeId: 0n, reason: 'file hash signature does not verify' }]);
  });

  it('a file out of order breaks the chain', async () => {
    const first = readRecordFile(summary.names[0]!, (await nodeFiles(summary.names[0]!)).copies[0]!.bytes);
    const third = readRecordFile(summary.names[2]!, (await nodeFiles(summary.names[2]!)).copies[0]!.bytes);
    assert.throws(() => checkPreviousHash(third, first.hash), refusal(/previous hash mismatch/));
  });

  it('the NODE_ID layout puts the same files under demo/0/<nodeId>/record/', async () => {
    const nodeOut = await mkdtemp(join(tmpdir(), 'lqs-stream-node-'));
    try {
      const written = await writeStream({ out: nodeOut, nodes: 2, files: 1, recordsPerFile: 3, seed: 7, keyBits: 2048, layout: 'node' });
      assert.deepEqual(written.nodeFolders, ['demo/0/0/record', 'demo/0/1/record']);
      assert.deepEqual(await new LocalSource(nodeOut).folders('demo/0/'), ['demo/0/0/', 'demo/0/1/']);
    } finally {
      await rm(nodeOut, { recursive: true, force: true });
    }
  });
  it("writes records the service's reader decodes, consensus message receipts included", () => {
    const generator = new TransactionGenerator(1, [3n, 4n]);
    let messages = 0;
    for (let i = 0; i < 200; i++) {
      const item = generator.next(1767225600000000000n + BigInt(i) * 1000n);
      const outcome = readRecordOutcome(item.record);
      assert.equal(outcome.result, 22);
      if (item.type === 'CONSENSUSSUBMITMESSAGE') messages++;
    }
    assert.ok(messages > 10, `${messages} consensus messages`);
  });
});
