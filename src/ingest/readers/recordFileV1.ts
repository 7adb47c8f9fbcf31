/** Record file v1: the legacy layout; its hash is SHA-384 of the whole file. */
import { sha384 } from '../hash.js';
import type { RecordFile } from '../recordFile.js';
import { readLegacyRecordFile } from './legacyRecordFile.js';

export function readRecordFileV1(bytes: Buffer, name: string, size: number): RecordFile {
  return readLegacyRecordFile(bytes, name, size, 1, sha384(bytes));
}
