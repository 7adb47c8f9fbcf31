/**
 * Reads any record file: gunzips `.gz` names, then picks the reader by the leading big-endian int32
 * (the format version). `name` and `size` are kept as downloaded.
 */
import type { RecordFile } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { contentOf } from './streamContent.js';
import { readRecordFileV1 } from './recordFileV1.js';
import { readRecordFileV2 } from './recordFileV2.js';
import { readRecordFileV5 } from './recordFileV5.js';
import { readRecordFileV6 } from './recordFileV6.js';

const READERS: Record<number, (bytes: Buffer, name: string, size: number) => RecordFile> = {
  1: readRecordFileV1,
  2: readRecordFileV2,
  5: readRecordFileV5,
  6: readRecordFileV6,
};

/** `name` is the file name as downloaded (`.gz` included); the base name is kept for the row. */
export function readRecordFile(name: string, downloaded: Buffer): RecordFile {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const bytes = contentOf(name, downloaded);
  if (bytes.length < 4) throw new StreamFileError(name, `truncated: ${bytes.length} bytes, not even a version`);
  const version = bytes.readInt32BE(0);
  const reader = READERS[version];
  if (!reader) throw new StreamFileError(name, `unknown record file version ${version}`);
  return reader(bytes, base, downloaded.length);
}
