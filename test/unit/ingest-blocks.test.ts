import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decompress } from 'fzstd';
import protobuf from 'protobufjs/minimal.js';
import { readBlockItems } from '../../src/ingest/proto/blockItem.js';
import { readSignedRecordFileProof } from '../../src/ingest/proto/recordFileItem.js';
import { StreamingTree } from '../../src/ingest/readers/blockRootHash.js';
import { type BlockFile, readBlockFile } from '../../src/ingest/readers/blockFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { bundledAddressBook } from '../../src/ingest/verification/bundledAddressBooks.js';
import { checkPreviousHash } from '../../src/ingest/verification/fileHashes.js';
import { verifyRecordFileProof } from '../../src/ingest/verification/recordFileProof.js';
import { sha384 } from '../../src/ingest/hash.js';
import { streamFile, testAddressBook } from '../support/streamGroundTruth.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);
const WRB = 'wrbs/block/0000/0000/0000/0000/000.blk.zstd';
const BLOCK = (n: number) => `blockstreams/block/0000/0000/0000/0000/00${n}.blk.zstd`;

function wrapped(result: BlockFile) {
  assert.equal(result.kind, 'wrapped');
  return result as Extract<BlockFile, { kind: 'wrapped' }>;
}

function native(result: BlockFile) {
  assert.equal(result.kind, 'native');
  return (result as Extract<BlockFile, { kind: 'native' }>).block;
}

describe('wrapped record block: mainnet block 0', () => {
  const { file, proof } = wrapped(readBlockFile(WRB, streamFile(WRB)));

  it('is the first mainnet record file, rebuilt as v2', () => {
    assert.equal(streamFile(WRB).length, 3189);
    assert.equal(decompress(streamFile(WRB)).length, 3412);
    assert.equal(file.index, 0n);
    assert.equal(file.version, 2);
    assert.equal(file.name, '2019-09-13T21_53_51.396440Z.rcd');
    assert.equal(file.size, 455);
    assert.equal(file.count, 1);
    assert.equal(file.consensusStart, 1568411631396440000n);
    assert.equal(file.consensusEnd, 1568411631396440000n);
    assert.equal(file.hapiVersion, null);
    const hash = '420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e';
    assert.equal(file.hash.toString('hex'), hash);
    assert.equal(file.fileHash.toString('hex'), hash);
    assert.deepEqual(file.prevHash, Buffer.alloc(48));
    assert.equal(file.metadataHash, null);
    assert.equal(file.gasUsed, 0n);
    assert.deepEqual(file.logsBloom, Buffer.alloc(0));
  });

  it('carries 7 signatures: all verify with the 2019 mainnet book, 3 with the 2026 one', () => {
    assert.equal(proof.version, 2);
    assert.deepEqual(
      proof.signatures.map((s) => s.nodeId),
      [0n, 1n, 2n, 3n, 4n, 5n, 6n],
    );
    const consensus = verifyRecordFileProof(file.name, file.fileHash, proof, bundledAddressBook('mainnet', file.consensusStart));
    assert.deepEqual(consensus.signers, [0n, 1n, 2n, 3n, 4n, 5n, 6n]);
    assert.equal(consensus.totalStake, 13n);
    const later = bundledAddressBook('mainnet', 1769623200803405897n);
    assert.throws(
      () => verifyRecordFileProof(file.name, file.fileHash, proof, later),
      refusal(/consensus not reached: verified signatures hold 3 of 32 stake, 11 needed/),
    );
  });

  it('applies amendments to the items, not to the signed file', () => {
    const timestamp = (seconds: number, nanos: number) =>
      protobuf.Writer.create().uint32(8).int64(seconds).uint32(16).int32(nanos).finish();
    const amendment = (seconds: number, nanos: number, memo: string) => {
      const record = protobuf.Writer.create().uint32(0x1a).bytes(timestamp(seconds, nanos)).uint32(0x2a).string(memo).finish();
      const transaction = protobuf.Writer.create().uint32(0x2a).bytes(Buffer.from(memo)).finish();
      return protobuf.Writer.create().uint32(0x0a).bytes(transaction).uint32(0x12).bytes(record).finish();
    };
    const items = readBlockItems(decompress(streamFile(WRB)));
    const recordFileItem = protobuf.Writer.create();
    recordFileItem.uint32(0x22).bytes(amendment(1568411631, 396440000, 'replaces the only item'));
    recordFileItem.uint32(0x22).bytes(amendment(1568411632, 5, 'added after it'));
    const amendedItem = Buffer.concat([items[1]!.body, recordFileItem.finish()]);
    const block = protobuf.Writer.create();
    for (const [i, item] of items.entries()) {
      block.uint32(0x0a).bytes(i === 1 ? protobuf.Writer.create().uint32(0x52).bytes(amendedItem).finish() : item.bytes);
    }
    const amended = wrapped(readBlockFile('block.blk', Buffer.from(block.finish()))).file;
    assert.deepEqual(amended.fileHash, file.fileHash);
    assert.equal(amended.count, 2);
    assert.equal(amended.consensusStart, 1568411631396440000n);
    assert.equal(amended.consensusEnd, 1568411632000000005n);
    assert.ok(amended.items[0]!.recordBytes!.toString().includes('replaces the only item'));
    assert.ok(amended.items[1]!.recordBytes!.toString().includes('added after it'));
  });

  it('refuses a block of another shape or an unknown record file version', () => {
    const items = readBlockItems(decompress(streamFile(WRB)));
    const blockOf = (parts: Uint8Array[]) => {
      const w = protobuf.Writer.create();
      for (const part of parts) w.uint32(0x0a).bytes(part);
      return Buffer.from(w.finish());
    };
    const [header, recordFile, footer, proof] = items.map((i) => i.bytes);
    assert.throws(
      () => readBlockFile('b.blk', blockOf([header!, recordFile!, proof!])),
      refusal(/^b\.blk: a wrapped record block holds header, record file, footer and proofs, not items \[1, 10, 9\]$/),
    );
    const v3 = protobuf.Writer.create().uint32(8).uint32(3).finish();
    const proofV3 = protobuf.Writer.create().uint32(0x4a).bytes(protobuf.Writer.create().uint32(0x22).bytes(v3).finish()).finish();
    assert.throws(
      () => readBlockFile('b.blk', blockOf([header!, recordFile!, footer!, proofV3])),
      refusal(/unknown record file version 3 in the block proof/),
    );
  });

  it('refuses a block whose record file differs from the signed one', () => {
    const forged = Buffer.from(file.fileHash);
    forged[0]! ^= 1;
    assert.throws(() => verifyRecordFileProof(file.name, forged, proof, bundledAddressBook('mainnet', 0n)), refusal(/hold 0 of 13 stake/));
  });
});

describe('SignedRecordFileProof of testnet block 20346052', () => {
  const proof = readSignedRecordFileProof(streamFile('signature/wrb/20346052.bin'));
  const fileHash = Buffer.from('de900c51272832b0670d204e5d9ff47cd07a5f7c86fac347c41993460ddaec5ee9483c469e6a1c9ed4881ad84201fafa', 'hex');
  const book = testAddressBook('testnet');
  const stakes = new Map([0n, 1n, 2n, 3n].map((id) => [id, 1000n]));

  it('version 6, nodes 0-3, all verify, with or without stakes', () => {
    assert.equal(proof.version, 6);
    assert.deepEqual(
      proof.signatures.map((s) => s.nodeId),
      [0n, 1n, 2n, 3n],
    );
    assert.deepEqual(verifyRecordFileProof('b', fileHash, proof, book).signers, [0n, 1n, 2n, 3n]);
    assert.equal(verifyRecordFileProof('b', fileHash, proof, book, stakes).stake, 4000n);
  });

  it('with nodes 0-2 signing random bytes: 1/4 of the stake, refused; no signatures: refused', () => {
    const broken = {
      ...proof,
      signatures: proof.signatures.map((s) => (s.nodeId < 3n ? { ...s, signature: randomBytes(384) } : s)),
    };
    assert.throws(() => verifyRecordFileProof('b', fileHash, broken, book), refusal(/hold 1 of 4 stake, 2 needed/));
    assert.throws(() => verifyRecordFileProof('b', fileHash, broken, book, stakes), refusal(/hold 1000 of 4000 stake, 1334 needed/));
    assert.throws(() => verifyRecordFileProof('b', fileHash, { ...proof, signatures: [] }, book), refusal(/hold 0 of 4 stake/));
  });
});

describe('native block stream blocks 7 and 8', () => {
  const truths = [
    {
      number: 7,
      size: 3999,
      unpacked: 5391,
      start: 1770842061390565879n,
      rounds: [179n, 213n],
      hash: '8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a',
      prev: 'e11e44567f5ca4ae23b75467b75d83c8880d0888f5c4154f08b8f221bf269b2e4f3f1686e8dcb9694beaaf287313b0fb',
    },
    {
      number: 8,
      size: 3015,
      unpacked: 4335,
      start: 1770842063775529380n,
      rounds: [214n, 248n],
      hash: '78ef36dc7c7cb57cfb212966b768a0fbc9b0f5045574c6b3bfa0cccdcef9401b7edda1cf05ada60dedd7e0b435e0d81d',
      prev: '8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a',
    },
  ];

  for (const t of truths) {
    it(`block ${t.number}: every value of the README, the root hash computed over the raw items`, () => {
      const bytes = streamFile(BLOCK(t.number));
      assert.equal(decompress(bytes).length, t.unpacked);
      const block = native(readBlockFile(BLOCK(t.number), bytes));
      assert.equal(block.index, BigInt(t.number));
      assert.equal(block.name, `000000000000000000${t.number}.blk.zstd`);
      assert.equal(block.size, t.size);
      assert.equal(block.version, 7);
      assert.equal(block.count, 1);
      assert.equal(block.transactions.length, 1);
      assert.equal(block.consensusStart, t.start);
      assert.equal(block.consensusEnd, t.start);
      assert.deepEqual([block.roundStart, block.roundEnd], t.rounds);
      assert.deepEqual(block.hapiVersion, { major: 0, minor: 73, patch: 0 });
      assert.deepEqual(block.softwareVersion, { major: 0, minor: 73, patch: 0 });
      assert.equal(block.hash.toString('hex'), t.hash);
      assert.equal(block.prevHash.toString('hex'), t.prev);
      assert.deepEqual(block.fileHash, Buffer.alloc(0));
      assert.equal(block.gasUsed, 0n);
      assert.deepEqual(block.logsBloom, Buffer.alloc(0));
    });
  }

  it('block 8 continues block 7; a block after another is refused', () => {
    const seven = native(readBlockFile(BLOCK(7), streamFile(BLOCK(7))));
    const eight = native(readBlockFile(BLOCK(8), streamFile(BLOCK(8))));
    checkPreviousHash(eight, seven.hash);
    assert.throws(() => checkPreviousHash(seven, eight.hash), refusal(/previous hash mismatch/));
  });

  it('refuses a truncated, corrupted or garbage-appended block file', () => {
    const bytes = streamFile(BLOCK(7));
    assert.throws(() => readBlockFile(BLOCK(7), bytes.subarray(0, bytes.length - 48)), StreamFileError);
    assert.throws(() => readBlockFile(BLOCK(7), Buffer.concat([bytes, Buffer.from('corrupt')])), StreamFileError);
    assert.throws(() => readBlockFile(BLOCK(7), Buffer.from('corrupt')), refusal(/not a valid zstd file/));
  });

  it('streaming trees fold as the README describes', () => {
    const leaf = (x: string) => sha384(Buffer.from([0]), Buffer.from(x));
    const node = (a: Buffer, b: Buffer) => sha384(Buffer.from([2]), a, b);
    const tree = new StreamingTree();
    assert.deepEqual(tree.root(), sha384(Buffer.from([0])));
    for (const x of ['a', 'b', 'c']) tree.add(Buffer.from(x));
    assert.deepEqual(tree.root(), node(node(leaf('a'), leaf('b')), leaf('c')));
    tree.add(Buffer.from('d'));
    tree.add(Buffer.from('e'));
    assert.deepEqual(tree.root(), node(node(node(leaf('a'), leaf('b')), node(leaf('c'), leaf('d'))), leaf('e')));
  });
});
