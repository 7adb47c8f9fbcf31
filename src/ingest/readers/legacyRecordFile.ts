/**
 * The layout v1 and v2 record files share: `int version`, `int hapi` (ignored), byte 0x01 and the
 * 48-byte previous hash, then items `0x02, int len, Transaction, int len, TransactionRecord`.
 * Only the file hash differs between the two versions (see recordFileV1.ts and recordFileV2.ts).
 */
import { ByteCursor } from '../byteCursor.js';
import { HASH_LENGTH } from '../hash.js';
import type { RecordFile } from '../recordFile.js';
import { recordItem, summarizeItems } from './items.js';

const PREV_HASH_MARKER = 0x01;
const RECORD_MARKER = 0x02;
/** bytes before the first item: version, hapi, marker, previous hash */
export const LEGACY_HEADER_LENGTH = 4 + 4 + 1 + HASH_LENGTH;

export function readLegacyRecordFile(bytes: Buffer, name: string, size: number, version: 1 | 2, fileHash: Buffer): RecordFile {
  const c = new ByteCursor(bytes, name);
  c.expectInt32(version, 'record file version');
  c.int32('HAPI version');
  if (c.byte('previous hash marker') !== PREV_HASH_MARKER) c.fail('no previous hash marker (0x01) after the header');
  const prevHash = Buffer.from(c.take(HASH_LENGTH, 'previous hash'));
  const items = [];
  while (c.remaining > 0) {
    const marker = c.byte('item marker');
    if (marker !== RECORD_MARKER) c.fail(`unknown item marker 0x${marker.toString(16)} at offset ${c.pos - 1}`);
    const transaction = c.lengthPrefixed('Transaction');
    const record = c.lengthPrefixed('TransactionRecord');
    items.push(recordItem(name, transaction, record, items.length));
  }
  return {
    name,
    size,
    version,
    ...summarizeItems(name, items),
    hash: fileHash,
    prevHash,
    fileHash,
    metadataHash: null,
    index: null,
    hapiVersion: null,
    sidecars: [],
    items,
  };
}
