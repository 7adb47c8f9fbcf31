/**
 * Signature file v5: byte 5, `int` (signature file format version), then the file HashObject and its
 * SignatureObject, the metadata HashObject and its SignatureObject.
 */
import { ByteCursor } from '../byteCursor.js';
import { readHashObject, readSignatureObject } from './hashObject.js';
import type { SignatureFile } from './signatureFile.js';

export function readSignatureFileV5(bytes: Buffer, name: string): SignatureFile {
  const c = new ByteCursor(bytes, name);
  if (c.byte('signature file version') !== 5) c.fail('not a v5 signature file');
  c.int32('object stream signature version');
  const fileHash = readHashObject(c, 'file hash');
  const fileSignature = readSignatureObject(c, 'file signature');
  const metadataHash = readHashObject(c, 'metadata hash');
  const metadataSignature = readSignatureObject(c, 'metadata signature');
  c.expectEnd();
  return { name, version: 5, fileHash, fileSignature, metadataHash, metadataSignature };
}
