/**
 * Block files (`block/NNNN/NNNN/NNNN/NNNN/NNN.blk.zstd`, the number padded to 19 digits): wrapped
 * record blocks, verified by their RSA proof, and native blocks, whose TSS proof cannot be checked
 * here, so that their trust comes from the hash chain back to a verified block or to the operator's
 * checkpoint (`--trust NUMBER:HASH`). A block the checkpoint names is accepted on its hash alone.
 */
import { readBlockFile } from '../readers/blockFile.js';
import type { StreamSource } from '../sources/source.js';
import { StreamFileError } from '../streamError.js';
import type { AddressBook } from '../verification/addressBook.js';
import { checkPreviousHash } from '../verification/fileHashes.js';
import { verifyRecordFileProof } from '../verification/recordFileProof.js';
import { checkInlineSidecars } from '../verification/sidecarHash.js';
import type { AcceptedFile, LastRow } from '../writers/recordFileWriter.js';
import { blockTransactionRows, recordItemRows } from '../writers/transactionRows.js';
import type { TrustCheckpoint, Walker } from './walker.js';

/** `block/0000/0000/0000/0000/007.blk.zstd` for block 7. */
export function blockKey(number: bigint): string {
  const digits = number.toString().padStart(19, '0');
  return `block/${digits.slice(0, 4)}/${digits.slice(4, 8)}/${digits.slice(8, 12)}/${digits.slice(12, 16)}/${digits.slice(16)}.blk.zstd`;
}

export interface BlockWalkerOptions {
  source: StreamSource;
  book: AddressBook;
  trust: TrustCheckpoint | null;
  shardRealm: { shard: bigint; realm: bigint };
}

export class BlockWalker implements Walker {
  readonly kind = 'blocks';

  private book: AddressBook;

  constructor(private readonly options: BlockWalkerOptions) {
    this.book = options.book;
  }

  useAddressBook(book: AddressBook): void {
    this.book = book;
  }

  /** The smallest block number in the source (the walk's start on an empty database without a checkpoint). */
  private async firstNumber(): Promise<bigint | null> {
    let prefix = 'block/';
    for (let depth = 0; depth < 4; depth++) {
      const [first] = await this.options.source.folders(prefix);
      if (!first) return null;
      prefix = first;
    }
    const [file] = (await this.options.source.list(prefix)).filter((o) => o.key.endsWith('.blk.zstd'));
    if (!file) return null;
    return BigInt(file.key.slice('block/'.length).replace('.blk.zstd', '').replaceAll('/', ''));
  }

  private async startNumber(): Promise<bigint | null> {
    const { trust, source } = this.options;
    if (!trust) return this.firstNumber();
    return (await source.read(blockKey(trust.number))) ? trust.number : trust.number + 1n;
  }

  async firstFileNanos(): Promise<bigint | null> {
    const number = await this.startNumber();
    const bytes = number === null ? null : await this.options.source.read(blockKey(number));
    if (number === null || bytes === null) return null;
    const block = readBlockFile(blockKey(number), bytes);
    return block.kind === 'native' ? block.block.consensusStart : block.file.consensusStart;
  }

  async next(last: LastRow | null): Promise<AcceptedFile | null> {
    const number = last ? last.index + 1n : await this.startNumber();
    if (number === null) return null;
    const key = blockKey(number);
    const bytes = await this.options.source.read(key);
    if (!bytes) return null;
    const block = readBlockFile(key, bytes);
    const { trust, shardRealm } = this.options;
    const { book } = this;
    const hash = block.kind === 'native' ? block.block.hash : block.file.hash;
    const prevHash = block.kind === 'native' ? block.block.prevHash : block.file.prevHash;
    const trusted = trust !== null && trust.number === number;
    if (trusted && !hash.equals(trust.hash)) {
      throw new StreamFileError(key, `block ${number} hashes to ${hash.toString('hex')}, not the trusted ${trust.hash.toString('hex')}`);
    }
    if (!trusted) {
      const expected = last ? Buffer.from(last.hash, 'hex') : trust !== null && trust.number + 1n === number ? trust.hash : null;
      if (block.kind === 'native' && expected === null) {
        throw new StreamFileError(
          key,
          'a native block is trusted through the hash chain: give --trust NUMBER:HASH for it or its predecessor',
        );
      }
      checkPreviousHash({ name: key, prevHash }, expected);
    }
    if (block.kind === 'native') {
      return { file: block.block, nodeId: null, rows: blockTransactionRows(key, block.block.transactions, shardRealm) };
    }
    if (!trusted) verifyRecordFileProof(key, block.file.fileHash, block.proof, book);
    checkInlineSidecars(block.file, block.sidecarFiles);
    return { file: block.file, nodeId: null, rows: recordItemRows(key, block.file.items, shardRealm) };
  }
}
