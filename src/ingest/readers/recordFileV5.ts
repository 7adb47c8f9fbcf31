/**
 * Record file v5: `int 5`, HAPI major, minor, patch, `int 1` (object stream version), the start running
 * HashObject, items (`long classId, int 1, int len + TransactionRecord, int len + Transaction`) and the
 * end running HashObject. The running hashes are taken from the file, never recomputed.
 */
import { ByteCursor } from '../byteCursor.js';
import { sha384 } from '../hash.js';
import type { RecordFile, RecordItem } from '../recordFile.js';
import { HASH_OBJECT_CLASS_ID, readHashObject } from './hashObject.js';
import { recordItem, summarizeItems } from './items.js';

const RECORD_STREAM_OBJECT_CLASS_ID = 0xe370929ba5429d8bn;
const OBJECT_STREAM_VERSION = 1;

export function readRecordFileV5(bytes: Buffer, name: string, size: number): RecordFile {
  const c = new ByteCursor(bytes, name);
  c.expectInt32(5, 'record file version');
  const hapiVersion = { major: c.int32('HAPI major'), minor: c.int32('HAPI minor'), patch: c.int32('HAPI patch') };
  c.expectInt32(OBJECT_STREAM_VERSION, 'object stream version');
  const prevHash = Buffer.from(readHashObject(c, 'start running hash'));
  const headerEnd = c.pos;
  const items: RecordItem[] = [];
  for (;;) {
    if (c.remaining >= 8 && BigInt.asUintN(64, c.bytes.readBigInt64BE(c.pos)) === HASH_OBJECT_CLASS_ID) break;
    const classId = BigInt.asUintN(64, c.int64('item class id'));
    if (classId !== RECORD_STREAM_OBJECT_CLASS_ID) c.fail(`item ${items.length}: class id 0x${classId.toString(16)} is not a record`);
    c.expectInt32(1, 'item class version');
    const record = c.lengthPrefixed('TransactionRecord');
    const transaction = c.lengthPrefixed('Transaction');
    items.push(recordItem(name, transaction, record, items.length));
  }
  const endStart = c.pos;
  const hash = Buffer.from(readHashObject(c, 'end running hash'));
  c.expectEnd();
  return {
    name,
    size,
    version: 5,
    ...summarizeItems(name, items),
    hash,
    prevHash,
    fileHash: sha384(bytes),
    metadataHash: sha384(bytes.subarray(0, headerEnd), bytes.subarray(endStart)),
    index: null,
    hapiVersion,
    sidecars: [],
    items,
  };
}
