import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { acceptRecordFile, type DownloadedCopy } from '../../src/ingest/verification/acceptRecordFile.js';
import { type AddressBook, nodeOfAccount } from '../../src/ingest/verification/addressBook.js';
import { type NodeSignature, reachConsensus } from '../../src/ingest/verification/consensus.js';
import { type GroundTruth, nodeCopy, RECORD_FILES, streamFile, testAddressBook } from '../support/streamGroundTruth.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);

function sigPath(truth: GroundTruth, node: string): string {
  return nodeCopy(truth, node).replace(/\.gz$/, '') + '_sig';
}

function signaturesOf(truth: GroundTruth, book: AddressBook, nodes = truth.nodes): NodeSignature[] {
  return nodes.map((account) => ({
    nodeId: nodeOfAccount(book, account)!.nodeId,
    signature: readSignatureFile(sigPath(truth, account), streamFile(sigPath(truth, account))),
  }));
}

function copiesOf(truth: GroundTruth, nodes = truth.nodes): DownloadedCopy[] {
  return nodes.map((account) => ({ name: nodeCopy(truth, account), bytes: streamFile(nodeCopy(truth, account)) }));
}

/** A copy of a signature whose file signature has one byte flipped. */
function withBadSignature(entry: NodeSignature, field: 'fileSignature' | 'metadataSignature' = 'fileSignature'): NodeSignature {
  const signature = Buffer.from(entry.signature[field]!);
  signature[10]! ^= 0xff;
  return { nodeId: entry.nodeId, signature: { ...entry.signature, [field]: signature } };
}

const fourNodeFiles = RECORD_FILES.filter((t) => t.nodes.length === 4);
const singleNodeFiles = RECORD_FILES.filter((t) => t.nodes.length === 1);
const v5 = RECORD_FILES.find((t) => t.path.startsWith('recordstreams/v5/'))!;
const v2 = RECORD_FILES.find((t) => t.version === 2)!;

describe('verification: the signatures of every record file', () => {
  for (const truth of fourNodeFiles) {
    it(`${truth.path}: all 4 nodes sign it, the file matches, the chain holds`, () => {
      const book = testAddressBook(truth.book);
      const consensus = reachConsensus(truth.name, signaturesOf(truth, book), book);
      assert.deepEqual(consensus.signers, [0n, 1n, 2n, 3n]);
      assert.equal(consensus.stake, 4n);
      assert.equal(consensus.totalStake, 4n);
      assert.deepEqual(consensus.rejected, []);
      assert.equal(consensus.fileHash.toString('hex'), truth.fileHash);
      assert.equal(consensus.metadataHash?.toString('hex') ?? null, truth.metadataHash);
      const file = acceptRecordFile(copiesOf(truth), consensus, Buffer.from(truth.prevHash, 'hex'));
      assert.equal(file.hash.toString('hex'), truth.hash);
    });
  }

  it('files signed by one node only: each signature verifies, but 1 of 4 is below the threshold', () => {
    assert.equal(singleNodeFiles.length, 4);
    for (const truth of singleNodeFiles) {
      const book = testAddressBook(truth.book);
      const signatures = signaturesOf(truth, book);
      assert.throws(
        () => reachConsensus(truth.name, signatures, book),
        refusal(/consensus not reached: verified signatures hold 1 of 4 stake, 2 needed$/),
      );
      const oneNodeBook: AddressBook = { nodes: new Map([[0n, book.nodes.get(0n)!]]) };
      const consensus = reachConsensus(truth.name, signatures, oneNodeBook);
      assert.deepEqual(consensus.signers, [0n]);
      assert.equal(acceptRecordFile(copiesOf(truth), consensus, null).hash.toString('hex'), truth.hash);
    }
  });
});

describe('verification: consensus scenarios', () => {
  const book = testAddressBook(v2.book);
  const all = signaturesOf(v2, book);

  it("one node's signature missing: 3 of 4 is enough", () => {
    const consensus = reachConsensus(v2.name, all.slice(0, 3), book);
    assert.deepEqual(consensus.signers, [0n, 1n, 2n]);
  });

  it('exactly one third: 1 signer of a 3-node book is accepted', () => {
    const threeNodes: AddressBook = { nodes: new Map([...book.nodes].filter(([id]) => id !== 3n)) };
    const consensus = reachConsensus(v2.name, all.slice(0, 1), threeNodes);
    assert.equal(consensus.stake, 1n);
    assert.equal(consensus.totalStake, 3n);
  });

  it('fewer than one third: 1 signer of 4 is refused, and no signature at all', () => {
    assert.throws(() => reachConsensus(v2.name, all.slice(0, 1), book), refusal(/hold 1 of 4 stake, 2 needed$/));
    assert.throws(() => reachConsensus(v2.name, [], book), refusal(/hold 0 of 4 stake, 2 needed$/));
  });

  it('a bad signature from one node is not counted; from three nodes it stops the file', () => {
    const oneBad = [all[0]!, withBadSignature(all[1]!), all[2]!, all[3]!];
    const consensus = reachConsensus(v2.name, oneBad, book);
    assert.deepEqual(consensus.signers, [0n, 2n, 3n]);
    assert.deepEqual(consensus.rejected, [{ nodeId: 1n, reason: 'file hash signature does not verify' }]);
    const threeBad = [withBadSignature(all[0]!), withBadSignature(all[1]!), withBadSignature(all[2]!), all[3]!];
    assert.throws(
      () => reachConsensus(v2.name, threeBad, book),
      refusal(/hold 1 of 4 stake, 2 needed \(node 0: file hash signature does not verify; node 1: .*; node 2: .*\)$/),
    );
  });

  it('a bad metadata signature (v5) is not counted', () => {
    const v5Book = testAddressBook(v5.book);
    const signatures = signaturesOf(v5, v5Book);
    signatures[2] = withBadSignature(signatures[2]!, 'metadataSignature');
    const consensus = reachConsensus(v5.name, signatures, v5Book);
    assert.deepEqual(consensus.signers, [0n, 1n, 3n]);
    assert.deepEqual(consensus.rejected, [{ nodeId: 2n, reason: 'metadata hash signature does not verify' }]);
  });

  it('a signature from a node outside the book is not counted', () => {
    const stranger = { nodeId: 9n, signature: all[0]!.signature };
    const consensus = reachConsensus(v2.name, [stranger, ...all.slice(1)], book);
    assert.deepEqual(consensus.rejected, [{ nodeId: 9n, reason: 'node is not in the address book' }]);
    assert.deepEqual(consensus.signers, [1n, 2n, 3n]);
  });

  it('weighs nodes by stake when given', () => {
    const stakes = new Map([
      [0n, 1000n],
      [1n, 1000n],
      [2n, 1000n],
      [3n, 1000n],
    ]);
    assert.equal(reachConsensus(v2.name, all, book, stakes).stake, 4000n);
    const heavy = new Map([...stakes, [3n, 10_000n]]);
    assert.equal(reachConsensus(v2.name, all.slice(3), book, heavy).stake, 10_000n);
    assert.throws(() => reachConsensus(v2.name, all.slice(0, 1), book, heavy), refusal(/hold 1000 of 13000 stake, 4334 needed$/));
  });

  it('signature files with bytes appended are refused by the reader', () => {
    for (const truth of [v2, v5]) {
      const path = sigPath(truth, '0.0.3');
      assert.throws(() => readSignatureFile(path, Buffer.concat([streamFile(path), Buffer.from('corrupt')])), StreamFileError);
    }
  });
});

describe('verification: data files against the signed hashes', () => {
  const v6 = RECORD_FILES.find((t) => t.version === 6 && t.nodes.length === 4)!;

  for (const truth of [v2, v5, v6]) {
    const book = testAddressBook(truth.book);
    const consensus = reachConsensus(truth.name, signaturesOf(truth, book), book);
    const good = copiesOf(truth);

    it(`v${truth.version}: a corrupted copy from one node does not stop the others`, () => {
      const bad = Buffer.from(good[0]!.bytes);
      bad[bad.length - 60]! ^= 0x01;
      const file = acceptRecordFile([{ name: good[0]!.name, bytes: bad }, ...good.slice(1)], consensus, null);
      assert.equal(file.fileHash.toString('hex'), truth.fileHash);
    });

    it(`v${truth.version}: truncated, garbage-appended or different copies only: refused`, () => {
      const bytes = good[0]!.bytes;
      const name = good[0]!.name;
      assert.throws(
        () => acceptRecordFile([{ name, bytes: bytes.subarray(0, 48) }], consensus, null),
        refusal(/no copy matches.*(truncated|gzip)/),
      );
      const appended = Buffer.concat([bytes, Buffer.from('corrupt')]);
      assert.throws(() => acceptRecordFile([{ name, bytes: appended }], consensus, null), refusal(/no copy matches/));
      const other = RECORD_FILES[RECORD_FILES.indexOf(truth) + 1]!;
      const otherCopy = { name: nodeCopy(other, '0.0.3'), bytes: streamFile(nodeCopy(other, '0.0.3')) };
      assert.throws(() => acceptRecordFile([otherCopy], consensus, null), refusal(/file hash [0-9a-f]{96} differs from the signed/));
      assert.throws(() => acceptRecordFile([], consensus, null), refusal(/no data file to read/));
    });

    it(`v${truth.version}: a wrong previous hash is refused`, () => {
      const wrong = Buffer.alloc(48, 0x12);
      assert.throws(() => acceptRecordFile(good, consensus, wrong), refusal(/previous hash mismatch/));
    });
  }

  it('a metadata hash that differs from the signed one is refused', () => {
    const book = testAddressBook(v5.book);
    const consensus = reachConsensus(v5.name, signaturesOf(v5, book), book);
    const forged = { ...consensus, metadataHash: Buffer.alloc(48, 1) };
    assert.throws(() => acceptRecordFile(copiesOf(v5), forged, null), refusal(/metadata hash [0-9a-f]{96} differs from the signed/));
  });
});
