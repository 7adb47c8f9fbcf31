/**
 * HAPI `RecordStreamFile` (the body of a v6 record file and of a wrapped record block's record file):
 * hapi_proto_version (1), start_object_running_hash (2), record_stream_items (3: transaction 1,
 * record 2), end_object_running_hash (4), block_number (5), sidecars (6: hash 1, id 2, types 3).
 * Items come back as the raw bytes of their Transaction and TransactionRecord.
 */
import protobuf from 'protobufjs/minimal.js';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import type { HapiVersion, SidecarRef } from '../recordFile.js';

export interface RecordStreamFileView {
  hapiVersion: HapiVersion;
  startRunningHash: Buffer | null;
  endRunningHash: Buffer | null;
  blockNumber: bigint;
  items: { transaction: Buffer; record: Buffer }[];
  sidecars: SidecarRef[];
}

/** Proto3 bytes fields decode as views of the input; Buffer.from copies nothing but makes them Buffers. */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function readSemanticVersion(bytes: Uint8Array): HapiVersion {
  const v = { major: 0, minor: 0, patch: 0 };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT || field > 3) return false;
    const n = r.int32();
    if (field === 1) v.major = n;
    else if (field === 2) v.minor = n;
    else v.patch = n;
    return true;
  });
  return v;
}

/** HashObject {algorithm = 1, length = 2, hash = 3}: the hash bytes. */
export function readHashObjectMessage(bytes: Uint8Array): Buffer {
  let hash: Buffer = Buffer.alloc(0);
  readFields(bytes, (field, wire, r) => {
    if (field !== 3 || wire !== WIRE_LENGTH) return false;
    hash = view(r.bytes());
    return true;
  });
  return hash;
}

function readSidecarMetadata(bytes: Uint8Array): SidecarRef {
  const sidecar: SidecarRef = { id: 0, types: [], hash: Buffer.alloc(0) };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) sidecar.hash = readHashObjectMessage(r.bytes());
    else if (field === 2 && wire === WIRE_VARINT) sidecar.id = r.int32();
    else if (field === 3 && wire === WIRE_VARINT) sidecar.types.push(r.int32());
    else if (field === 3 && wire === WIRE_LENGTH) {
      const packed = protobuf.Reader.create(r.bytes());
      while (packed.pos < packed.len) sidecar.types.push(packed.int32());
    } else return false;
    return true;
  });
  return sidecar;
}

/** RecordStreamItem {transaction 1, record 2}: the raw bytes of both. */
export function readRecordStreamItem(bytes: Uint8Array): { transaction: Buffer; record: Buffer } {
  const item: { transaction: Buffer; record: Buffer } = { transaction: Buffer.alloc(0), record: Buffer.alloc(0) };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || (field !== 1 && field !== 2)) return false;
    if (field === 1) item.transaction = view(r.bytes());
    else item.record = view(r.bytes());
    return true;
  });
  return item;
}

export function readRecordStreamFile(bytes: Uint8Array): RecordStreamFileView {
  const file: RecordStreamFileView = {
    hapiVersion: { major: 0, minor: 0, patch: 0 },
    startRunningHash: null,
    endRunningHash: null,
    blockNumber: 0n,
    items: [],
    sidecars: [],
  };
  readFields(bytes, (field, wire, r) => {
    if (field === 5 && wire === WIRE_VARINT) {
      file.blockNumber = int64(r);
      return true;
    }
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) file.hapiVersion = readSemanticVersion(r.bytes());
    else if (field === 2) file.startRunningHash = readHashObjectMessage(r.bytes());
    else if (field === 3) file.items.push(readRecordStreamItem(r.bytes()));
    else if (field === 4) file.endRunningHash = readHashObjectMessage(r.bytes());
    else if (field === 6) file.sidecars.push(readSidecarMetadata(r.bytes()));
    else return false;
    return true;
  });
  return file;
}
