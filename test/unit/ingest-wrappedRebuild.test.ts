/**
 * Wraps real v5 and v6 record files into blocks the way HIP-1427 does (their items in a
 * RecordStreamFile, the nodes' file signatures in a SignedRecordFileProof) and checks that the
 * rebuilt file is the original: same file hash, and the original signatures verify.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs/minimal.js';
import { readBlockFile } from '../../src/ingest/readers/blockFile.js';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import type { RecordFile } from '../../src/ingest/recordFile.js';
import { fileNameNanos } from '../../src/ingest/streamFileName.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { checkInlineSidecars } from '../../src/ingest/verification/sidecarHash.js';
import { verifyRecordFileProof } from '../../src/ingest/verification/recordFileProof.js';
import { type GroundTruth, nodeCopy, RECORD_FILES, streamFile, testAddressBook } from '../support/streamGroundTruth.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);

type Writer = protobuf.Writer;
const message = (build: (w: Writer) => void): Uint8Array => {
  const w = protobuf.Writer.create();
  build(w);
  return w.finish();
};
const field = (w: Writer, n: number, bytes: Uint8Array) => w.uint32((n << 3) | 2).bytes(bytes);
const varint = (w: Writer, n: number, v: number | bigint) => w.uint32(n << 3).int64(v.toString());
const timestamp = (nanos: bigint) =>
  message((w) => {
    varint(w, 1, nanos / 1_000_000_000n);
    varint(w, 2, nanos % 1_000_000_000n);
  });
const hashObject = (hash: Buffer) =>
  message((w) => {
    varint(w, 1, 1);
    varint(w, 2, 48);
    field(w, 3, hash);
  });

/** The RecordStreamFile a wrapper writes for a v5 file: its version, running hashes and items. */
function recordStreamFileOf(file: RecordFile): Uint8Array {
  return message((w) => {
    const v = file.hapiVersion!;
    field(
      w,
      1,
      message((sv) => {
        if (v.major) varint(sv, 1, v.major);
        if (v.minor) varint(sv, 2, v.minor);
        if (v.patch) varint(sv, 3, v.patch);
      }),
    );
    field(w, 2, hashObject(file.prevHash));
    for (const item of file.items) {
      field(
        w,
        3,
        message((i) => {
          field(i, 1, item.transactionBytes);
          field(i, 2, item.recordBytes!);
        }),
      );
    }
    field(w, 4, hashObject(file.hash));
  });
}

function wrap(truth: GroundTruth, contents: Uint8Array, version: number, number: bigint, sidecars: Uint8Array[] = []): Buffer {
  const book = testAddressBook(truth.book);
  const signatures = truth.nodes.map((account) => {
    const path = nodeCopy(truth, account).replace(/\.gz$/, '') + '_sig';
    const nodeId = [...book.nodes.values()].find((n) => n.accountId === account)!.nodeId;
    return { nodeId, signature: readSignatureFile(path, streamFile(path)).fileSignature };
  });
  const creation = fileNameNanos(truth.name);
  const header = message((w) => {
    varint(w, 3, number);
    field(w, 4, timestamp(creation));
  });
  const recordFileItem = message((w) => {
    field(w, 1, timestamp(creation));
    field(w, 2, contents);
    for (const sidecar of sidecars) field(w, 3, sidecar);
  });
  const proof = message((w) => {
    varint(w, 1, version);
    for (const s of signatures) {
      field(
        w,
        2,
        message((e) => {
          field(e, 1, s.signature);
          varint(e, 2, s.nodeId);
        }),
      );
    }
  });
  const items = [
    message((w) => field(w, 1, header)),
    message((w) => field(w, 10, recordFileItem)),
    message((w) => field(w, 12, new Uint8Array())),
    message((w) =>
      field(
        w,
        9,
        message((p) => field(p, 4, proof)),
      ),
    ),
  ];
  return Buffer.from(
    message((w) => {
      for (const item of items) field(w, 1, item);
    }),
  );
}

describe('wrapped record blocks rebuild v5 and v6 files byte for byte', () => {
  const v5 = RECORD_FILES.find((t) => t.path.startsWith('recordstreams/v5/'))!;
  const v6 = RECORD_FILES.find((t) => t.version === 6 && t.sidecars.length > 0)!;

  it('v5: the rebuilt file has the original file hash and the nodes signatures verify', () => {
    const original = readRecordFile(v5.name, streamFile(nodeCopy(v5, '0.0.3')));
    const result = readBlockFile('b.blk', wrap(v5, recordStreamFileOf(original), 5, 42n));
    assert.equal(result.kind, 'wrapped');
    if (result.kind !== 'wrapped') return;
    const { file, proof } = result;
    assert.equal(file.fileHash.toString('hex'), v5.fileHash);
    assert.equal(file.hash.toString('hex'), v5.hash);
    assert.equal(file.prevHash.toString('hex'), v5.prevHash);
    assert.equal(file.size, v5.size);
    assert.equal(file.name, '2021-01-11T22_09_24.063739Z.rcd');
    assert.equal(file.index, 42n);
    assert.equal(file.metadataHash, null);
    assert.deepEqual(file.hapiVersion, { major: 0, minor: 9, patch: 0 });
    assert.deepEqual(verifyRecordFileProof(file.name, file.fileHash, proof, testAddressBook(v5.book)).signers, [0n, 1n, 2n, 3n]);
  });

  it('v6: the RecordStreamFile bytes as they are, hashed with the version in front', () => {
    const contents = gunzipSync(streamFile(nodeCopy(v6, '0.0.3'))).subarray(4);
    const sidecarPath = nodeCopy(v6, '0.0.3').replace(/([^/]+)\.rcd\.gz$/, 'sidecar/$1_01.rcd.gz');
    const sidecar = gunzipSync(streamFile(sidecarPath));
    const result = readBlockFile('b.blk', wrap(v6, contents, 6, 6n, [sidecar]));
    assert.equal(result.kind, 'wrapped');
    if (result.kind !== 'wrapped') return;
    const { file, proof } = result;
    assert.equal(file.fileHash.toString('hex'), v6.fileHash);
    assert.equal(file.hash.toString('hex'), v6.hash);
    assert.equal(file.prevHash.toString('hex'), v6.prevHash);
    assert.equal(file.size, contents.length + 4);
    assert.equal(file.name, '2022-07-13T08_46_11.304284003Z.rcd');
    assert.equal(file.gasUsed, v6.gasUsed);
    assert.equal(file.sidecars[0]?.hash.toString('hex'), v6.sidecars[0]!.hash);
    assert.deepEqual(verifyRecordFileProof(file.name, file.fileHash, proof, testAddressBook(v6.book)).signers, [0n, 1n, 2n, 3n]);
    checkInlineSidecars(file, result.sidecarFiles);
    const changed = Buffer.from(sidecar);
    changed[changed.length - 1]! ^= 1;
    assert.throws(() => checkInlineSidecars(file, [changed]), refusal(/inline sidecar 1: hash [0-9a-f]{96} differs from 1ed54ea0/));
    assert.throws(() => checkInlineSidecars(file, []), refusal(/0 inline sidecar files for 1 listed sidecars/));
  });
});
