/**
 * Rebuilds the original record file of a wrapped record block from its v6 `RecordStreamFile`, in the
 * format its proof names, byte for byte as the nodes wrote it (HIP-1427):
 * v2: `int 2, int HAPI minor, 0x01, start hash`, then `0x02, len, Transaction, len, TransactionRecord` per item;
 * v5: the v5 object stream layout; v6: `int 6` followed by the RecordStreamFile bytes as they are.
 */
import { HASH_LENGTH } from '../hash.js';
import { readRecordStreamFile } from '../proto/recordStreamFile.js';
import { StreamFileError } from '../streamError.js';

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function int64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

const HASH_OBJECT_HEADER = Buffer.concat([int64(0xf422da83a251741en), int32(1), int32(0x58ff811b), int32(HASH_LENGTH)]);
const RECORD_OBJECT_HEADER = Buffer.concat([int64(0xe370929ba5429d8bn), int32(1)]);

export function rebuildRecordFile(version: number, contents: Buffer, name: string): Buffer {
  if (version === 6) return Buffer.concat([int32(6), contents]);
  let file: ReturnType<typeof readRecordStreamFile>;
  try {
    file = readRecordStreamFile(contents);
  } catch (e) {
    throw new StreamFileError(name, `malformed RecordStreamFile (${(e as Error).message})`);
  }
  const start = file.startRunningHash;
  if (start?.length !== HASH_LENGTH) throw new StreamFileError(name, 'no 48-byte start running hash (the previous hash)');
  const { major, minor, patch } = file.hapiVersion;
  const parts: Buffer[] = [];
  if (version === 2) {
    parts.push(int32(2), int32(minor), Buffer.from([0x01]), start);
    for (const item of file.items) {
      parts.push(Buffer.from([0x02]), int32(item.transaction.length), item.transaction, int32(item.record.length), item.record);
    }
  } else {
    const end = file.endRunningHash;
    if (end?.length !== HASH_LENGTH) throw new StreamFileError(name, 'no 48-byte end running hash');
    parts.push(int32(5), int32(major), int32(minor), int32(patch), int32(1), HASH_OBJECT_HEADER, start);
    for (const item of file.items) {
      parts.push(RECORD_OBJECT_HEADER, int32(item.record.length), item.record, int32(item.transaction.length), item.transaction);
    }
    parts.push(HASH_OBJECT_HEADER, end);
  }
  return Buffer.concat(parts);
}
