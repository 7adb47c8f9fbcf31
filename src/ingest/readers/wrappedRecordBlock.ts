/**
 * A wrapped record block (HIP-1427): block header, a RecordFileItem holding the record file as a v6
 * `RecordStreamFile`, block footer, and a `SignedRecordFileProof`. The original file is rebuilt in the
 * format the proof names (2, 5 or 6), so that its file hash is the one the nodes signed; the row is
 * that inner file's (name from creation_time without `.gz`, size of the rebuilt file, no metadata hash).
 * Amendments replace the item of the same consensus time or are inserted in time order.
 */
import { BlockItemKind, type RawBlockItem, readBlockHeader } from '../proto/blockItem.js';
import {
  type RecordFileItemView,
  readRecordFileItem,
  type SignedRecordFileProofView,
  signedRecordFileProofOf,
} from '../proto/recordFileItem.js';
import { readRecordStreamItem } from '../proto/recordStreamFile.js';
import type { RecordFile, RecordItem } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { nanosToFileTime } from '../streamFileName.js';
import { recordItem, summarizeItems } from './items.js';
import { readRecordFileV2 } from './recordFileV2.js';
import { readRecordFileV5 } from './recordFileV5.js';
import { readRecordFileV6 } from './recordFileV6.js';
import { rebuildRecordFile } from './rebuildRecordFile.js';

export interface WrappedRecordBlock {
  file: RecordFile;
  /** the proof's signatures, over `file.fileHash` */
  proof: SignedRecordFileProofView;
  /** the inline sidecar files (serialized SidecarFile, as a gunzipped `_NN.rcd.gz`), in the order of `file.sidecars` */
  sidecarFiles: Buffer[];
}

const READERS = { 2: readRecordFileV2, 5: readRecordFileV5, 6: readRecordFileV6 } as const;

function applyAmendments(items: RecordItem[], item: RecordFileItemView, name: string): RecordItem[] {
  if (item.amendments.length === 0) return items;
  const byTime = new Map(items.map((i) => [i.consensusTimestamp, i]));
  for (const [i, bytes] of item.amendments.entries()) {
    let raw: ReturnType<typeof readRecordStreamItem>;
    try {
      raw = readRecordStreamItem(bytes);
    } catch (e) {
      throw new StreamFileError(name, `amendment ${i}: malformed RecordStreamItem (${(e as Error).message})`);
    }
    const amended = recordItem(name, raw.transaction, raw.record, i);
    byTime.set(amended.consensusTimestamp, amended);
  }
  return [...byTime.values()].sort((x, y) => (x.consensusTimestamp < y.consensusTimestamp ? -1 : 1));
}

export function readWrappedRecordBlock(items: RawBlockItem[], name: string): WrappedRecordBlock {
  const kinds = items.map((i) => i.kind);
  const expected = [BlockItemKind.blockHeader, BlockItemKind.recordFile, BlockItemKind.blockFooter, BlockItemKind.blockProof];
  if (kinds.length < 4 || expected.some((k, i) => kinds[i] !== k) || kinds.slice(4).some((k) => k !== BlockItemKind.blockProof)) {
    throw new StreamFileError(name, `a wrapped record block holds header, record file, footer and proofs, not items [${kinds.join(', ')}]`);
  }
  const header = readBlockHeader(items[0]!.body);
  const recordFileItem = readRecordFileItem(items[1]!.body);
  const proof = items
    .slice(3)
    .map((p) => signedRecordFileProofOf(p.body))
    .find((p) => p !== null);
  if (!proof) throw new StreamFileError(name, 'the block proof is not a SignedRecordFileProof');
  const reader = READERS[proof.version as keyof typeof READERS];
  if (!reader) throw new StreamFileError(name, `unknown record file version ${proof.version} in the block proof`);
  if (!recordFileItem.contents || recordFileItem.creationTime === null) {
    throw new StreamFileError(name, 'the record file item has no contents or no creation time');
  }
  const innerName = `${nanosToFileTime(recordFileItem.creationTime)}.rcd`;
  const rebuilt = rebuildRecordFile(proof.version, recordFileItem.contents, innerName);
  const file = reader(rebuilt, innerName, rebuilt.length);
  const amended = applyAmendments(file.items, recordFileItem, innerName);
  return {
    file: {
      ...file,
      ...(amended === file.items ? {} : { ...summarizeItems(innerName, amended), items: amended }),
      index: header.number,
      metadataHash: null,
    },
    proof,
    sidecarFiles: recordFileItem.sidecarFiles,
  };
}
