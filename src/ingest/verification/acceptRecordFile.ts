/**
 * Picks the data file to keep once consensus is known: the first node copy whose computed hashes
 * equal the signed ones (a node with a corrupted copy does not stop the others), then checks the chain.
 */
import { readRecordFile } from '../readers/recordFileReader.js';
import type { RecordFile } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import type { Consensus } from './consensus.js';
import { checkPreviousHash, checkSignedHashes } from './fileHashes.js';

export interface DownloadedCopy {
  /** path or name as downloaded; its base name becomes the row's name */
  name: string;
  bytes: Buffer;
}

export function acceptRecordFile(copies: DownloadedCopy[], consensus: Consensus, expectedPrevHash: Buffer | null): RecordFile {
  const reasons: string[] = [];
  for (const copy of copies) {
    try {
      const file = readRecordFile(copy.name, copy.bytes);
      checkSignedHashes(file, consensus);
      checkPreviousHash(file, expectedPrevHash);
      return file;
    } catch (e) {
      if (!(e instanceof StreamFileError)) throw e;
      reasons.push(e.reason);
    }
  }
  const name = copies[0]?.name ?? '(no copy)';
  throw new StreamFileError(name, reasons.length ? `no copy matches the signed hashes: ${reasons.join('; ')}` : 'no data file to read');
}
