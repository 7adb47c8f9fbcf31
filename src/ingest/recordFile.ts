/**
 * What the readers produce: one record file (or block) with the values of its `record_file` row and
 * its items, ready for a writer. Hashes are the raw 48 bytes; a writer renders them as the schema wants.
 */
export interface HapiVersion {
  major: number;
  minor: number;
  patch: number;
}

/** One transaction of a file: the raw bytes as the stream carries them, plus what the row needs decoded. */
export interface RecordItem {
  consensusTimestamp: bigint;
  /** serialized `Transaction` (record streams) or `SignedTransaction` (block streams), never re-encoded */
  transactionBytes: Buffer;
  /** serialized `TransactionRecord` (record streams); null for native block items */
  recordBytes: Buffer | null;
  parentConsensusTimestamp: bigint | null;
  nonce: number;
  scheduled: boolean;
  /** gas used and bloom of the record's contractCallResult or contractCreateResult, when it has one */
  contractResult: { gasUsed: bigint; bloom: Buffer } | null;
}

export interface SidecarRef {
  id: number;
  types: number[];
  /** SHA-384 of the gunzipped sidecar file */
  hash: Buffer;
}

export interface RecordFile {
  /** the file name as downloaded (`.gz` included) */
  name: string;
  /** bytes as downloaded (compressed for `.rcd.gz` and `.blk.zstd`) */
  size: number;
  /** record file format (1, 2, 5, 6) or 7 for a native block */
  version: number;
  count: number;
  consensusStart: bigint;
  consensusEnd: bigint;
  hash: Buffer;
  prevHash: Buffer;
  /** empty for native blocks */
  fileHash: Buffer;
  /** null for v1, v2, wrapped record blocks and native blocks */
  metadataHash: Buffer | null;
  /** the block number when the file carries it (v6, blocks); null before v6, where the writer anchors it */
  index: bigint | null;
  hapiVersion: HapiVersion | null;
  gasUsed: bigint;
  /** empty without a top-level contract result, else 256 bytes */
  logsBloom: Buffer;
  sidecars: SidecarRef[];
  items: RecordItem[];
}

/** A transaction of a native block: its SignedTransaction and TransactionResult bytes as streamed. */
export interface BlockTransaction {
  consensusTimestamp: bigint;
  signedTransactionBytes: Buffer;
  resultBytes: Buffer;
}

/** A native block stream block (version 7): the record_file row's values and its transactions. */
export interface NativeBlock extends Omit<RecordFile, 'items' | 'version'> {
  version: 7;
  index: bigint;
  softwareVersion: HapiVersion;
  roundStart: bigint | null;
  roundEnd: bigint | null;
  transactions: BlockTransaction[];
}
