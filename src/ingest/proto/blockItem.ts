/**
 * HAPI block stream messages (HIP-1056): a block file is `Block {items = 1}`, each a `BlockItem` whose
 * one field says its kind. Items are kept as their raw serialized bytes, which the block hash covers.
 * BlockHeader: hapi_proto_version 1, software_version 2, number 3, block_timestamp 4.
 * BlockFooter: previous_block_root_hash 1, root_hash_of_all_block_hashes_tree 2, start_of_block_state_root_hash 3.
 * TransactionResult: consensus_timestamp 2. RoundHeader: round_number 1.
 */
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import type { HapiVersion } from '../recordFile.js';
import { readSemanticVersion } from './recordStreamFile.js';
import { timestampNanos } from './transactionRecord.js';

export const BlockItemKind = {
  blockHeader: 1,
  eventHeader: 2,
  roundHeader: 3,
  signedTransaction: 4,
  transactionResult: 5,
  transactionOutput: 6,
  stateChanges: 7,
  filteredItemHash: 8,
  blockProof: 9,
  recordFile: 10,
  traceData: 11,
  blockFooter: 12,
} as const;

export interface RawBlockItem {
  kind: number;
  /** the whole serialized BlockItem */
  bytes: Buffer;
  /** the serialized message inside it */
  body: Buffer;
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The items of a `Block`, each with its kind (the BlockItem field set) and raw bytes. */
export function readBlockItems(block: Uint8Array): RawBlockItem[] {
  const items: RawBlockItem[] = [];
  readFields(block, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    const bytes = view(r.bytes());
    let kind = 0;
    let body: Buffer = Buffer.alloc(0);
    readFields(bytes, (f, w, ir) => {
      if (w !== WIRE_LENGTH || kind !== 0) return false;
      kind = f;
      body = view(ir.bytes());
      return true;
    });
    items.push({ kind, bytes, body });
    return true;
  });
  return items;
}

export interface BlockHeaderView {
  hapiVersion: HapiVersion;
  softwareVersion: HapiVersion;
  number: bigint;
  /** the serialized Timestamp, which the block hash covers as it is */
  timestampBytes: Buffer;
  timestamp: bigint;
}

export function readBlockHeader(bytes: Uint8Array): BlockHeaderView {
  const header: BlockHeaderView = {
    hapiVersion: { major: 0, minor: 0, patch: 0 },
    softwareVersion: { major: 0, minor: 0, patch: 0 },
    number: 0n,
    timestampBytes: Buffer.alloc(0),
    timestamp: 0n,
  };
  readFields(bytes, (field, wire, r) => {
    if (field === 3 && wire === WIRE_VARINT) header.number = BigInt.asUintN(64, int64(r));
    else if (wire !== WIRE_LENGTH) return false;
    else if (field === 1) header.hapiVersion = readSemanticVersion(r.bytes());
    else if (field === 2) header.softwareVersion = readSemanticVersion(r.bytes());
    else if (field === 4) {
      header.timestampBytes = view(r.bytes());
      header.timestamp = timestampNanos(header.timestampBytes);
    } else return false;
    return true;
  });
  return header;
}

export interface BlockFooterView {
  previousBlockRootHash: Buffer;
  rootHashOfAllBlockHashesTree: Buffer;
  startOfBlockStateRootHash: Buffer;
}

export function readBlockFooter(bytes: Uint8Array): BlockFooterView {
  const footer: BlockFooterView = {
    previousBlockRootHash: Buffer.alloc(0),
    rootHashOfAllBlockHashesTree: Buffer.alloc(0),
    startOfBlockStateRootHash: Buffer.alloc(0),
  };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || field < 1 || field > 3) return false;
    const hash = view(r.bytes());
    if (field === 1) footer.previousBlockRootHash = hash;
    else if (field === 2) footer.rootHashOfAllBlockHashesTree = hash;
    else footer.startOfBlockStateRootHash = hash;
    return true;
  });
  return footer;
}

/** TransactionResult.consensus_timestamp (2); null when absent. */
export function resultConsensusTimestamp(bytes: Uint8Array): bigint | null {
  let at: bigint | null = null;
  readFields(bytes, (field, wire, r) => {
    if (field !== 2 || wire !== WIRE_LENGTH) return false;
    at = timestampNanos(r.bytes());
    return true;
  });
  return at;
}

/** RoundHeader.round_number (1). */
export function roundNumber(bytes: Uint8Array): bigint {
  let round = 0n;
  readFields(bytes, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_VARINT) return false;
    round = BigInt.asUintN(64, int64(r));
    return true;
  });
  return round;
}
