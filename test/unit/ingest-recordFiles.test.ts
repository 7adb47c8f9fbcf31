import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/minimal.js';
import { transactionTypeName } from '../../src/domain/transactionTypes.js';
import { transactionTypeOf } from '../../src/ingest/proto/transactionBody.js';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import type { RecordFile } from '../../src/ingest/recordFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { checkPreviousHash } from '../../src/ingest/verification/fileHashes.js';
import { type GroundTruth, nodeCopy, RECORD_FILES, streamFile } from '../support/streamGroundTruth.js';

function hapiText(file: RecordFile): string | null {
  const v = file.hapiVersion;
  return v ? `${v.major}.${v.minor}.${v.patch}` : null;
}

function assertGroundTruth(file: RecordFile, truth: GroundTruth): void {
  assert.equal(file.name, truth.name);
  assert.equal(file.size, truth.size);
  assert.equal(file.version, truth.version);
  assert.equal(file.count, truth.count);
  assert.equal(file.items.length, truth.count);
  assert.equal(file.consensusStart, truth.consensusStart);
  assert.equal(file.consensusEnd, truth.consensusEnd);
  assert.equal(file.index, truth.index);
  assert.equal(hapiText(file), truth.hapiVersion);
  assert.equal(file.hash.toString('hex'), truth.hash);
  assert.equal(file.prevHash.toString('hex'), truth.prevHash);
  assert.equal(file.fileHash.toString('hex'), truth.fileHash);
  assert.equal(file.metadataHash?.toString('hex') ?? null, truth.metadataHash);
  assert.equal(file.gasUsed, truth.gasUsed);
  assert.deepEqual(file.logsBloom, truth.logsBloom === 'empty' ? Buffer.alloc(0) : Buffer.alloc(256));
  const types: Record<string, number> = {};
  for (const item of file.items) {
    const name = transactionTypeName(transactionTypeOf(item.transactionBytes) ?? -1);
    types[name] = (types[name] ?? 0) + 1;
  }
  assert.deepEqual(types, truth.transactions);
  assert.deepEqual(
    file.sidecars.map((s) => ({ id: s.id, types: s.types, hash: s.hash.toString('hex') })),
    truth.sidecars,
  );
}

function refusal(pattern: RegExp) {
  return (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);
}

describe('record file readers: the ground truth of ../shared/streams', () => {
  for (const truth of RECORD_FILES) {
    it(`${truth.path} (v${truth.version}), every node copy`, () => {
      for (const node of truth.nodes) {
        const path = nodeCopy(truth, node);
        assertGroundTruth(readRecordFile(path, streamFile(path)), truth);
      }
    });
  }

  it('keeps every item with its raw bytes, in consensus order inside the range', () => {
    for (const truth of RECORD_FILES) {
      const file = readRecordFile(truth.name, streamFile(nodeCopy(truth, truth.nodes[0]!)));
      let previous = file.consensusStart;
      for (const item of file.items) {
        assert.ok(item.consensusTimestamp >= previous && item.consensusTimestamp <= file.consensusEnd, truth.name);
        assert.ok(item.transactionBytes.length > 0 && (item.recordBytes?.length ?? 0) > 0, truth.name);
        previous = item.consensusTimestamp;
      }
    }
  });

  it('finds the contract results behind gas_used: top-level ones count, children do not', () => {
    const v6 = RECORD_FILES.find((t) => t.gasUsed === 800000n)!;
    const file = readRecordFile(v6.name, streamFile(nodeCopy(v6, '0.0.3')));
    const [call, create] = file.items;
    assert.equal(call?.nonce, 0);
    assert.equal(call?.contractResult?.gasUsed, 800000n);
    assert.equal(create?.nonce, 1);
    assert.equal(create?.parentConsensusTimestamp, call?.consensusTimestamp);
    assert.ok(create?.contractResult, 'the child has a contract result, left out of gas_used');
  });

  it('chains consecutive files, across versions, and refuses a broken chain', () => {
    const pairs = RECORD_FILES.filter((t, i) => {
      const next = RECORD_FILES[i + 1];
      return next && next.prevHash === t.hash;
    });
    assert.equal(pairs.length, 7, 'v1, v2, v2v5, v5, v5v6, v6 and the hip679 pair chain');
    for (const [i, truth] of RECORD_FILES.entries()) {
      const next = RECORD_FILES[i + 1];
      if (!next || next.prevHash !== truth.hash) continue;
      const file = readRecordFile(next.name, streamFile(nodeCopy(next, next.nodes[0]!)));
      checkPreviousHash(file, Buffer.from(truth.hash, 'hex'));
    }
    const eth = RECORD_FILES.filter((t) => t.path.includes('eth-0.26.0'));
    const second = readRecordFile(eth[1]!.name, streamFile(nodeCopy(eth[1]!, '0.0.3')));
    assert.throws(() => checkPreviousHash(second, Buffer.from(eth[0]!.hash, 'hex')), refusal(/previous hash mismatch/));
    checkPreviousHash(second, Buffer.alloc(48));
    checkPreviousHash(second, null);
  });
});

describe('record file readers: bad input is refused with the reason', () => {
  const samples = [1, 2, 5].map((v) => RECORD_FILES.find((t) => t.version === v)!);
  const v6 = RECORD_FILES.find((t) => t.version === 6)!;

  for (const truth of samples) {
    const bytes = streamFile(nodeCopy(truth, truth.nodes[0]!));
    it(`v${truth.version}: truncated, cut short, garbage appended`, () => {
      assert.throws(() => readRecordFile(truth.name, bytes.subarray(0, bytes.length - 48)), refusal(/truncated/));
      assert.throws(() => readRecordFile(truth.name, bytes.subarray(0, 48)), refusal(/truncated/));
      assert.throws(() => readRecordFile(truth.name, bytes.subarray(0, 2)), refusal(/truncated/));
      assert.throws(
        () => readRecordFile(truth.name, Buffer.concat([bytes, Buffer.from([0, 1, 2, 3])])),
        refusal(truth.version === 5 ? /unexpected bytes after the end/ : /truncated|unknown item marker/),
      );
      assert.throws(() => readRecordFile(truth.name, Buffer.concat([bytes, Buffer.from('corrupt')])), StreamFileError);
    });
  }

  it('v6: truncated or garbage inside the gzip, a broken gzip, bytes after it', () => {
    const content = gunzipSync(streamFile(nodeCopy(v6, '0.0.3')));
    const cut = gzipSync(content.subarray(0, content.length - 48));
    assert.throws(() => readRecordFile(v6.name, cut), refusal(/malformed RecordStreamFile|running hash/));
    const garbage = gzipSync(Buffer.concat([content, Buffer.from('corrupt')]));
    assert.throws(() => readRecordFile(v6.name, garbage), refusal(/malformed/));
    const gz = streamFile(nodeCopy(v6, '0.0.3'));
    assert.throws(() => readRecordFile(v6.name, gz.subarray(0, 100)), refusal(/not a valid gzip file/));
    assert.throws(
      () => readRecordFile(v6.name, Buffer.concat([gz, Buffer.from([0, 1, 2, 3])])),
      refusal(/4 unexpected bytes after the end of the gzip/),
    );
    assert.throws(() => readRecordFile(v6.name, Buffer.concat([gz, Buffer.from('corrupt')])), refusal(/not a valid gzip file/));
  });

  it('an unknown version names the version', () => {
    const bytes = Buffer.from(streamFile(nodeCopy(samples[1]!, '0.0.3')));
    bytes.writeInt32BE(3, 0);
    assert.throws(() => readRecordFile('x.rcd', bytes), refusal(/^x\.rcd: unknown record file version 3$/));
    assert.throws(() => readRecordFile('x.rcd', Buffer.alloc(0)), refusal(/truncated/));
  });

  it('a record without a consensus timestamp is refused', () => {
    const truth = samples[2]!;
    const bytes = Buffer.from(streamFile(nodeCopy(truth, '0.0.3')));
    const file = readRecordFile(truth.name, bytes);
    const record = file.items[0]!.recordBytes!;
    // turn the consensusTimestamp field (3, length-delimited) into an unknown field 13 of the same shape
    const reader = protobuf.Reader.create(record);
    let tagAt = -1;
    while (reader.pos < reader.len && tagAt < 0) {
      const start = reader.pos;
      const tag = reader.uint32();
      if (tag === 0x1a) tagAt = start;
      else reader.skipType(tag & 7);
    }
    bytes[bytes.indexOf(record) + tagAt] = 0x6a;
    assert.throws(() => readRecordFile(truth.name, bytes), refusal(/without a consensus timestamp/));
  });
});
