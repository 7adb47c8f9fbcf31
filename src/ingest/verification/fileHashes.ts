/**
 * The checks that follow consensus: the file's computed hashes must equal the signed ones, and its
 * previous hash must continue the chain of accepted files.
 */
import type { RecordFile } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import type { Consensus } from './consensus.js';

export function checkSignedHashes(file: RecordFile, consensus: Pick<Consensus, 'fileHash' | 'metadataHash'>): void {
  if (!file.fileHash.equals(consensus.fileHash)) {
    throw new StreamFileError(
      file.name,
      `file hash ${file.fileHash.toString('hex')} differs from the signed ${consensus.fileHash.toString('hex')}`,
    );
  }
  if (consensus.metadataHash && !file.metadataHash?.equals(consensus.metadataHash)) {
    throw new StreamFileError(
      file.name,
      `metadata hash ${file.metadataHash?.toString('hex') ?? '(none)'} differs from the signed ${consensus.metadataHash.toString('hex')}`,
    );
  }
}

/**
 * The chain rule: accepted when the expected previous hash is unknown (absent, empty or all zeros) or
 * equals the file's prev_hash; refused otherwise, also when the file's prev_hash is empty.
 */
export function checkPreviousHash(file: Pick<RecordFile, 'name' | 'prevHash'>, expected: Buffer | null): void {
  if (!expected || expected.length === 0 || expected.every((b) => b === 0)) return;
  if (!file.prevHash.equals(expected)) {
    throw new StreamFileError(
      file.name,
      `previous hash mismatch: the file continues ${file.prevHash.toString('hex') || '(nothing)'}, the last accepted file is ${expected.toString('hex')}`,
    );
  }
}
