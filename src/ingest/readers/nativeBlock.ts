/**
 * A native block stream block (HIP-1056, `NNN.blk.zstd` gunzipped by zstd): header, rounds, events,
 * transactions with their results, state changes, footer and proof. Its hash is the block root hash
 * computed over the raw item bytes; its previous hash is the footer's. The TSS proof is not checked
 * here: a native block's trust comes from the hash chain.
 */
import {
  BlockItemKind,
  type RawBlockItem,
  readBlockFooter,
  readBlockHeader,
  resultConsensusTimestamp,
  roundNumber,
} from '../proto/blockItem.js';
import type { BlockTransaction, NativeBlock } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { blockRootHash } from './blockRootHash.js';

function only(items: RawBlockItem[], kind: number, what: string, name: string): RawBlockItem {
  const found = items.filter((i) => i.kind === kind);
  if (found.length !== 1) throw new StreamFileError(name, `${found.length} ${what} items, expected 1`);
  return found[0]!;
}

/** The transactions that have a result, each paired with the last signed transaction before its result. */
function transactionsOf(items: RawBlockItem[], name: string): BlockTransaction[] {
  const out: BlockTransaction[] = [];
  let signed: Buffer | null = null;
  for (const item of items) {
    if (item.kind === BlockItemKind.signedTransaction) signed = item.body;
    else if (item.kind === BlockItemKind.transactionResult) {
      const at = resultConsensusTimestamp(item.body);
      if (signed === null || at === null)
        throw new StreamFileError(name, `transaction result ${out.length} without a transaction or a time`);
      out.push({ consensusTimestamp: at, signedTransactionBytes: signed, resultBytes: item.body });
      signed = null;
    }
  }
  return out;
}

export function readNativeBlock(items: RawBlockItem[], name: string, size: number): NativeBlock {
  if (items[0]?.kind !== BlockItemKind.blockHeader) throw new StreamFileError(name, 'the block does not start with a block header');
  const header = readBlockHeader(only(items, BlockItemKind.blockHeader, 'block header', name).body);
  const footer = readBlockFooter(only(items, BlockItemKind.blockFooter, 'block footer', name).body);
  only(items, BlockItemKind.blockProof, 'block proof', name);
  if (items[items.length - 1]?.kind !== BlockItemKind.blockProof) throw new StreamFileError(name, 'the block does not end with its proof');
  if (header.timestampBytes.length === 0) throw new StreamFileError(name, 'the block header has no block timestamp');
  const transactions = transactionsOf(items, name);
  const rounds = items.filter((i) => i.kind === BlockItemKind.roundHeader).map((i) => roundNumber(i.body));
  const first = transactions[0];
  const last = transactions[transactions.length - 1];
  return {
    name,
    size,
    version: 7,
    count: transactions.length,
    consensusStart: first ? first.consensusTimestamp : header.timestamp,
    consensusEnd: last ? last.consensusTimestamp : header.timestamp,
    hash: blockRootHash(items, footer, header.timestampBytes),
    prevHash: footer.previousBlockRootHash,
    fileHash: Buffer.alloc(0),
    metadataHash: null,
    index: header.number,
    hapiVersion: header.hapiVersion,
    softwareVersion: header.softwareVersion,
    gasUsed: 0n,
    logsBloom: Buffer.alloc(0),
    sidecars: [],
    roundStart: rounds[0] ?? null,
    roundEnd: rounds[rounds.length - 1] ?? null,
    transactions,
  };
}
