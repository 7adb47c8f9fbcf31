/**
 * A walker finds, downloads and verifies the file that follows the last stored one; the ingester
 * writes what it returns. `next` returns null when the source has nothing new yet, and throws a
 * StreamFileError naming the file when the next file cannot be accepted.
 */
import type { AddressBook } from '../verification/addressBook.js';
import type { AcceptedFile, LastRow } from '../writers/recordFileWriter.js';

export interface Walker {
  /** what it walks, for logs: `record streams (ACCOUNT_ID, NODE_ID)` or `blocks` */
  readonly kind: string;
  next(last: LastRow | null): Promise<AcceptedFile | null>;
  /** the consensus time the walk starts at on an empty database (its first file's), null when the source has none */
  firstFileNanos(): Promise<bigint | null>;
  /** verifies the files after this one with `book` (the stream published a new 0.0.102) */
  useAddressBook(book: AddressBook): void;
}

/** A checkpoint the operator trusts: the block of this number has this hash (`--trust NUMBER:HASH`). */
export interface TrustCheckpoint {
  number: bigint;
  hash: Buffer;
}

/** Parses `NUMBER:HASH` (hash as 96 hex digits, `0x` allowed); an Error saying what is wrong. */
export function parseTrust(text: string): TrustCheckpoint {
  const m = /^(\d+):(?:0x)?([0-9a-fA-F]{96})$/.exec(text.trim());
  if (!m) throw new Error(`--trust wants NUMBER:HASH (a block number and its 96 hex digit SHA-384 hash), not '${text}'`);
  return { number: BigInt(m[1]!), hash: Buffer.from(m[2]!, 'hex') };
}
