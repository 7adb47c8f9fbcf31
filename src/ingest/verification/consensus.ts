/**
 * Consensus on a stream file's hashes, as the importer decides it: each node's signature file counts
 * when its signatures verify with that node's key; the hashes signed by the nodes holding the most
 * stake are accepted when that stake is at least ceil(total / 3). Without stakes in the book (or
 * given by the caller) every node of the book weighs 1.
 */
import type { SignatureFile } from '../readers/signatureFile.js';
import { StreamFileError } from '../streamError.js';
import type { AddressBook } from './addressBook.js';
import { verifyHashSignature } from './rsaSignature.js';

export interface NodeSignature {
  nodeId: bigint;
  signature: SignatureFile;
}

export interface Consensus {
  fileHash: Buffer;
  /** null for signature files without one (v2 format) */
  metadataHash: Buffer | null;
  /** node ids whose signatures verified for these hashes, ascending */
  signers: bigint[];
  stake: bigint;
  totalStake: bigint;
  /** per node that was not counted: why */
  rejected: { nodeId: bigint; reason: string }[];
}

/** Node weights: the given stakes, else the book's when every node has one, else 1 each. */
export function nodeWeights(book: AddressBook, stakes?: Map<bigint, bigint>): Map<bigint, bigint> {
  const weights = new Map<bigint, bigint>();
  const bookStakes = [...book.nodes.values()].every((n) => n.stake > 0n);
  for (const node of book.nodes.values()) {
    weights.set(node.nodeId, stakes ? (stakes.get(node.nodeId) ?? 0n) : bookStakes ? node.stake : 1n);
  }
  return weights;
}

/** ceil(total × 1/3): the stake that must have signed. */
export function consensusThreshold(totalStake: bigint): bigint {
  return (totalStake + 2n) / 3n;
}

function whyInvalid(book: AddressBook, { nodeId, signature: s }: NodeSignature): string | null {
  const node = book.nodes.get(nodeId);
  if (!node) return 'node is not in the address book';
  if (!verifyHashSignature(s.fileHash, s.fileSignature, node.publicKey)) return 'file hash signature does not verify';
  if (s.metadataHash && s.metadataSignature && !verifyHashSignature(s.metadataHash, s.metadataSignature, node.publicKey)) {
    return 'metadata hash signature does not verify';
  }
  return null;
}

/** Throws a StreamFileError naming `file` and the stake reached when no hash has enough stake behind it. */
export function reachConsensus(file: string, signatures: NodeSignature[], book: AddressBook, stakes?: Map<bigint, bigint>): Consensus {
  const weights = nodeWeights(book, stakes);
  let totalStake = 0n;
  for (const w of weights.values()) totalStake += w;
  const rejected: Consensus['rejected'] = [];
  const groups = new Map<string, { fileHash: Buffer; metadataHash: Buffer | null; signers: Set<bigint> }>();
  for (const entry of signatures) {
    const reason = whyInvalid(book, entry);
    if (reason) {
      rejected.push({ nodeId: entry.nodeId, reason });
      continue;
    }
    const { fileHash, metadataHash } = entry.signature;
    const key = fileHash.toString('hex') + (metadataHash ? metadataHash.toString('hex') : '');
    const group = groups.get(key) ?? { fileHash, metadataHash, signers: new Set<bigint>() };
    group.signers.add(entry.nodeId);
    groups.set(key, group);
  }
  let best: Consensus | null = null;
  for (const g of groups.values()) {
    let stake = 0n;
    for (const id of g.signers) stake += weights.get(id) ?? 0n;
    if (best === null || stake > best.stake) {
      const signers = [...g.signers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      best = { fileHash: g.fileHash, metadataHash: g.metadataHash, signers, stake, totalStake, rejected };
    }
  }
  const needed = consensusThreshold(totalStake);
  if (best === null || best.stake < needed) {
    const detail = rejected.map((r) => `node ${r.nodeId}: ${r.reason}`).join('; ');
    throw new StreamFileError(
      file,
      `consensus not reached: verified signatures hold ${best?.stake ?? 0n} of ${totalStake} stake, ${needed} needed` +
        (detail ? ` (${detail})` : ''),
    );
  }
  return best;
}
