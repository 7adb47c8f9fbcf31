/**
 * Record file v6 (`.rcd.gz`, given here gunzipped): `int 6` + a `RecordStreamFile` protobuf.
 * file_hash = SHA-384 of the gunzipped bytes; metadata_hash = SHA-384(int 6, int major, int minor,
 * int patch, start hash, end hash, long block_number); index = block_number.
 */
import { ByteCursor } from '../byteCursor.js';
import { HASH_LENGTH, sha384 } from '../hash.js';
import { type RecordStreamFileView, readRecordStreamFile } from '../proto/recordStreamFile.js';
import type { RecordFile } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { recordItem, summarizeItems } from './items.js';

export function v6MetadataHash(file: RecordStreamFileView, startHash: Buffer, endHash: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeInt32BE(6, 0);
  header.writeInt32BE(file.hapiVersion.major, 4);
  header.writeInt32BE(file.hapiVersion.minor, 8);
  header.writeInt32BE(file.hapiVersion.patch, 12);
  const block = Buffer.alloc(8);
  block.writeBigInt64BE(file.blockNumber);
  return sha384(header, startHash, endHash, block);
}

/** Decodes a RecordStreamFile body and checks the running hashes are there; protobuf errors name the file. */
export function decodeRecordStreamFile(
  body: Buffer,
  name: string,
): RecordStreamFileView & { startRunningHash: Buffer; endRunningHash: Buffer } {
  let file: RecordStreamFileView;
  try {
    file = readRecordStreamFile(body);
  } catch (e) {
    throw new StreamFileError(name, `malformed RecordStreamFile (${(e as Error).message})`);
  }
  const { startRunningHash, endRunningHash } = file;
  if (startRunningHash?.length !== HASH_LENGTH) throw new StreamFileError(name, 'no 48-byte start running hash');
  if (endRunningHash?.length !== HASH_LENGTH) throw new StreamFileError(name, 'no 48-byte end running hash');
  return { ...file, startRunningHash, endRunningHash };
}

export function readRecordFileV6(bytes: Buffer, name: string, size: number): RecordFile {
  const c = new ByteCursor(bytes, name);
  c.expectInt32(6, 'record file version');
  const file = decodeRecordStreamFile(bytes.subarray(4), name);
  const items = file.items.map((item, i) => recordItem(name, item.transaction, item.record, i));
  return {
    name,
    size,
    version: 6,
    ...summarizeItems(name, items),
    hash: Buffer.from(file.endRunningHash),
    prevHash: Buffer.from(file.startRunningHash),
    fileHash: sha384(bytes),
    metadataHash: v6MetadataHash(file, file.startRunningHash, file.endRunningHash),
    index: file.blockNumber,
    hapiVersion: file.hapiVersion,
    sidecars: file.sidecars,
    items,
  };
}
