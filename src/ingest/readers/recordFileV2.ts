/** Record file v2: the legacy layout; its hash is SHA-384(header ‖ SHA-384(the items)). */
import { sha384 } from '../hash.js';
import type { RecordFile } from '../recordFile.js';
import { LEGACY_HEADER_LENGTH, readLegacyRecordFile } from './legacyRecordFile.js';

export function v2FileHash(bytes: Buffer): Buffer {
  return sha384(bytes.subarray(0, LEGACY_HEADER_LENGTH), sha384(bytes.subarray(LEGACY_HEADER_LENGTH)));
}

export function readRecordFileV2(bytes: Buffer, name: string, size: number): RecordFile {
  return readLegacyRecordFile(bytes, name, size, 2, v2FileHash(bytes));
}
