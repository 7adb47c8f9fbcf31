/**
 * The parts of a wrapped record block (HIP-1427): `RecordFileItem` {creation_time 1,
 * record_file_contents 2 (RecordStreamFile), sidecar_file_contents 3, amendments 4 (RecordStreamItem)}
 * and the block proof's `SignedRecordFileProof` (BlockProof field 4) {version 1,
 * record_file_signatures 2: signatures_bytes 1, node_id 2}.
 */
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { timestampNanos } from './transactionRecord.js';

export interface RecordFileItemView {
  creationTime: bigint | null;
  /** the raw RecordStreamFile bytes (a v6 file is `int 6` followed by exactly these) */
  contents: Buffer | null;
  sidecarFiles: Buffer[];
  /** raw RecordStreamItem bytes */
  amendments: Buffer[];
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function readRecordFileItem(bytes: Uint8Array): RecordFileItemView {
  const item: RecordFileItemView = { creationTime: null, contents: null, sidecarFiles: [], amendments: [] };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) item.creationTime = timestampNanos(r.bytes());
    else if (field === 2) item.contents = view(r.bytes());
    else if (field === 3) item.sidecarFiles.push(view(r.bytes()));
    else if (field === 4) item.amendments.push(view(r.bytes()));
    else return false;
    return true;
  });
  return item;
}

export interface SignedRecordFileProofView {
  version: number;
  signatures: { nodeId: bigint; signature: Buffer }[];
}

export function readSignedRecordFileProof(bytes: Uint8Array): SignedRecordFileProofView {
  const proof: SignedRecordFileProofView = { version: 0, signatures: [] };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_VARINT) proof.version = r.uint32();
    else if (field === 2 && wire === WIRE_LENGTH) {
      const entry = { nodeId: 0n, signature: Buffer.alloc(0) as Buffer };
      readFields(r.bytes(), (f, w, sr) => {
        if (f === 1 && w === WIRE_LENGTH) entry.signature = view(sr.bytes());
        else if (f === 2 && w === WIRE_VARINT) entry.nodeId = int64(sr);
        else return false;
        return true;
      });
      proof.signatures.push(entry);
    } else return false;
    return true;
  });
  return proof;
}

/** BlockProof.signed_record_file_proof (4); null for another kind of proof. */
export function signedRecordFileProofOf(blockProof: Uint8Array): SignedRecordFileProofView | null {
  let proof: SignedRecordFileProofView | null = null;
  readFields(blockProof, (field, wire, r) => {
    if (field !== 4 || wire !== WIRE_LENGTH) return false;
    proof = readSignedRecordFileProof(r.bytes());
    return true;
  });
  return proof;
}
