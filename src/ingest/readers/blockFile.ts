/**
 * Reads a block file (`NNNN/…/NNN.blk.zstd`): zstd-decompressed (a name without `.zstd` is read as is), then a wrapped record block when it
 * carries a record file item, else a native block. `name` and `size` are kept as downloaded.
 */
import { decompress } from 'fzstd';
import { BlockItemKind, type RawBlockItem, readBlockItems } from '../proto/blockItem.js';
import type { NativeBlock } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { readNativeBlock } from './nativeBlock.js';
import { readWrappedRecordBlock, type WrappedRecordBlock } from './wrappedRecordBlock.js';

export type BlockFile = ({ kind: 'wrapped' } & WrappedRecordBlock) | { kind: 'native'; block: NativeBlock };

/** A native block's row name: its number padded to 19 digits (`0000000000000000007.blk.zstd`). */
export function blockFileName(number: bigint): string {
  return `${number.toString().padStart(19, '0')}.blk.zstd`;
}

function itemsOf(name: string, downloaded: Buffer): RawBlockItem[] {
  let bytes: Uint8Array;
  try {
    bytes = name.endsWith('.zstd') ? decompress(downloaded) : downloaded;
  } catch (e) {
    throw new StreamFileError(name, `not a valid zstd file (${(e as Error).message})`);
  }
  try {
    return readBlockItems(bytes);
  } catch (e) {
    throw new StreamFileError(name, `malformed Block (${(e as Error).message})`);
  }
}

export function readBlockFile(name: string, downloaded: Buffer): BlockFile {
  const items = itemsOf(name, downloaded);
  try {
    if (items.some((i) => i.kind === BlockItemKind.recordFile)) return { kind: 'wrapped', ...readWrappedRecordBlock(items, name) };
    const block = readNativeBlock(items, name, downloaded.length);
    return { kind: 'native', block: { ...block, name: blockFileName(block.index) } };
  } catch (e) {
    if (e instanceof StreamFileError) throw e;
    throw new StreamFileError(name, `malformed block item (${(e as Error).message})`);
  }
}
