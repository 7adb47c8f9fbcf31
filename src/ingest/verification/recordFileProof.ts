/**
 * Verifies a wrapped record block's `SignedRecordFileProof`: each node's RSA signature over the file
 * hash of the rebuilt record file, with the same consensus rule as signature files.
 */
import type { SignedRecordFileProofView } from '../proto/recordFileItem.js';
import type { AddressBook } from './addressBook.js';
import { type Consensus, reachConsensus } from './consensus.js';

export function verifyRecordFileProof(
  file: string,
  fileHash: Buffer,
  proof: SignedRecordFileProofView,
  book: AddressBook,
  stakes?: Map<bigint, bigint>,
): Consensus {
  const signatures = proof.signatures.map(({ nodeId, signature }) => ({
    nodeId,
    signature: {
      name: file,
      version: 2 as const,
      fileHash,
      fileSignature: signature,
      metadataHash: null,
      metadataSignature: null,
    },
  }));
  return reachConsensus(file, signatures, book, stakes);
}
