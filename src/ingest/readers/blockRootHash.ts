/**
 * The block root hash of a native block (HIP-1056), SHA-384 with a prefix per node kind: leaf 0x00,
 * single-child node 0x01, internal node 0x02.
 * root = internal(leaf(block timestamp bytes), single(T)), where T is the balanced tree over eight
 * values taken as they are: the footer's previous block root hash, root of all previous block hashes
 * and start-of-block state root, then the roots of five streaming trees fed with the raw item bytes
 * in stream order (consensus headers, inputs, outputs, state changes, trace data).
 */
import { sha384 } from '../hash.js';
import { BlockItemKind, type BlockFooterView, type RawBlockItem } from '../proto/blockItem.js';

const LEAF = Buffer.from([0x00]);
const SINGLE = Buffer.from([0x01]);
const INTERNAL = Buffer.from([0x02]);

const leaf = (bytes: Uint8Array) => sha384(LEAF, bytes);
const internal = (left: Buffer, right: Buffer) => sha384(INTERNAL, left, right);

/** A streaming Merkle tree: keeps only the pending subtree roots, combining equal-sized pairs as leaves arrive. */
export class StreamingTree {
  private pending: Buffer[] = [];
  private leaves = 0;

  add(item: Uint8Array): void {
    this.pending.push(leaf(item));
    // one combination per trailing 1 bit of the count of leaves added before this one
    for (let n = this.leaves; (n & 1) === 1; n >>>= 1) {
      const right = this.pending.pop()!;
      const left = this.pending.pop()!;
      this.pending.push(internal(left, right));
    }
    this.leaves++;
  }

  root(): Buffer {
    if (this.pending.length === 0) return sha384(LEAF);
    let acc = this.pending[this.pending.length - 1]!;
    for (let i = this.pending.length - 2; i >= 0; i--) acc = internal(this.pending[i]!, acc);
    return acc;
  }
}

/** Which of the five streaming trees an item kind feeds; footer and proof feed none. */
const TREE_OF_KIND: Record<number, number> = {
  [BlockItemKind.eventHeader]: 0,
  [BlockItemKind.roundHeader]: 0,
  [BlockItemKind.signedTransaction]: 1,
  [BlockItemKind.blockHeader]: 2,
  [BlockItemKind.transactionResult]: 2,
  [BlockItemKind.transactionOutput]: 2,
  [BlockItemKind.recordFile]: 2,
  [BlockItemKind.stateChanges]: 3,
  [BlockItemKind.traceData]: 4,
};

export function blockRootHash(items: RawBlockItem[], footer: BlockFooterView, timestampBytes: Buffer): Buffer {
  const trees = Array.from({ length: 5 }, () => new StreamingTree());
  for (const item of items) {
    const tree = TREE_OF_KIND[item.kind];
    if (tree !== undefined) trees[tree]!.add(item.bytes);
  }
  const values = [
    footer.previousBlockRootHash,
    footer.rootHashOfAllBlockHashesTree,
    footer.startOfBlockStateRootHash,
    ...trees.map((t) => t.root()),
  ];
  let level = values;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(internal(level[i]!, level[i + 1]!));
    level = next;
  }
  return internal(leaf(timestampBytes), sha384(SINGLE, level[0]!));
}
