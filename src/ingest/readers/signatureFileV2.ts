/**
 * Signature file of record files v1/v2 and balance files (first byte 0x04): byte 4, the 48-byte file
 * hash, byte 3, `int len`, the SHA384withRSA signature.
 */
import { ByteCursor } from '../byteCursor.js';
import { HASH_LENGTH } from '../hash.js';
import type { SignatureFile } from './signatureFile.js';

const HASH_MARKER = 0x04;
const SIGNATURE_MARKER = 0x03;
const MAX_SIGNATURE_LENGTH = 1024;

export function readSignatureFileV2(bytes: Buffer, name: string): SignatureFile {
  const c = new ByteCursor(bytes, name);
  if (c.byte('file hash marker') !== HASH_MARKER) c.fail('no file hash marker (0x04)');
  const fileHash = c.take(HASH_LENGTH, 'file hash');
  if (c.byte('signature marker') !== SIGNATURE_MARKER) c.fail('no signature marker (0x03) after the file hash');
  const fileSignature = c.lengthPrefixed('signature', MAX_SIGNATURE_LENGTH);
  c.expectEnd();
  return { name, version: 2, fileHash, fileSignature, metadataHash: null, metadataSignature: null };
}
