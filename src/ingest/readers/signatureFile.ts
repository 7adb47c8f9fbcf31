/** Reads a node's signature file, picking the format by its first byte (0x04 = v2, 5, 6); `.gz` names are gunzipped. */
import { StreamFileError } from '../streamError.js';
import { contentOf } from './streamContent.js';
import { readSignatureFileV2 } from './signatureFileV2.js';
import { readSignatureFileV5 } from './signatureFileV5.js';
import { readSignatureFileV6 } from './signatureFileV6.js';

export interface SignatureFile {
  name: string;
  /** 2 for the 0x04 format (record files v1/v2 and balance files), else 5 or 6 */
  version: 2 | 5 | 6;
  fileHash: Buffer;
  fileSignature: Buffer;
  /** v5 and v6 only */
  metadataHash: Buffer | null;
  metadataSignature: Buffer | null;
}

const READERS: Record<number, (bytes: Buffer, name: string) => SignatureFile> = {
  4: readSignatureFileV2,
  5: readSignatureFileV5,
  6: readSignatureFileV6,
};

export function readSignatureFile(name: string, downloaded: Buffer): SignatureFile {
  const bytes = contentOf(name, downloaded);
  const first = bytes[0];
  if (first === undefined) throw new StreamFileError(name, 'empty signature file');
  const reader = READERS[first];
  if (!reader) throw new StreamFileError(name, `unknown signature file version ${first}`);
  return reader(bytes, name.slice(name.lastIndexOf('/') + 1));
}
