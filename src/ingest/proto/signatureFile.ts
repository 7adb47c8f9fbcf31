/**
 * HAPI `SignatureFile` (signature files v6): file_signature (1) and metadata_signature (2), each a
 * `SignatureObject` {type 1, length 2, checksum 3, signature 4, hash_object 5}.
 */
import { readFields, WIRE_LENGTH } from '../../domain/protobuf.js';
import { readHashObjectMessage } from './recordStreamFile.js';

export interface SignatureObjectView {
  signature: Buffer;
  hash: Buffer;
}

function readSignatureObject(bytes: Uint8Array): SignatureObjectView {
  const out: SignatureObjectView = { signature: Buffer.alloc(0), hash: Buffer.alloc(0) };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 4) out.signature = Buffer.from(r.bytes());
    else if (field === 5) out.hash = readHashObjectMessage(r.bytes());
    else return false;
    return true;
  });
  return out;
}

export function readSignatureFileMessage(bytes: Uint8Array): { file: SignatureObjectView | null; metadata: SignatureObjectView | null } {
  const out: { file: SignatureObjectView | null; metadata: SignatureObjectView | null } = { file: null, metadata: null };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || (field !== 1 && field !== 2)) return false;
    if (field === 1) out.file = readSignatureObject(r.bytes());
    else out.metadata = readSignatureObject(r.bytes());
    return true;
  });
  return out;
}
