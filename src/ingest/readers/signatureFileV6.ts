/** Signature file v6: byte 6 + a `SignatureFile` protobuf with the file and metadata signatures. */
import { HASH_LENGTH } from '../hash.js';
import { readSignatureFileMessage } from '../proto/signatureFile.js';
import { StreamFileError } from '../streamError.js';
import type { SignatureFile } from './signatureFile.js';

export function readSignatureFileV6(bytes: Buffer, name: string): SignatureFile {
  let message: ReturnType<typeof readSignatureFileMessage>;
  try {
    message = readSignatureFileMessage(bytes.subarray(1));
  } catch (e) {
    throw new StreamFileError(name, `malformed SignatureFile (${(e as Error).message})`);
  }
  const { file, metadata } = message;
  if (!file || file.hash.length !== HASH_LENGTH || file.signature.length === 0) {
    throw new StreamFileError(name, 'no file hash and signature');
  }
  if (!metadata || metadata.hash.length !== HASH_LENGTH || metadata.signature.length === 0) {
    throw new StreamFileError(name, 'no metadata hash and signature');
  }
  return {
    name,
    version: 6,
    fileHash: file.hash,
    fileSignature: file.signature,
    metadataHash: metadata.hash,
    metadataSignature: metadata.signature,
  };
}
