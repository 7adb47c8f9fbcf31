/**
 * The serialized objects of the v5 "object stream" (record files and signature files v5):
 * HashObject = `long classId, int classVersion, int digestType (SHA-384), int length, hash`;
 * SignatureObject = `long classId, int classVersion, int type (SHA384withRSA), int length, int checksum, signature`.
 */
import type { ByteCursor } from '../byteCursor.js';
import { HASH_LENGTH } from '../hash.js';

export const HASH_OBJECT_CLASS_ID = 0xf422da83a251741en;
const SHA384_DIGEST_TYPE = 0x58ff811b;
const SIGNATURE_OBJECT_CLASS_ID = 0x13dc4b399b245c69n;
const SHA384_WITH_RSA = 1;
/** an RSA-3072 signature is 384 bytes; the bound only stops absurd lengths */
const MAX_SIGNATURE_LENGTH = 1024;

/** Reads one HashObject; returns its hash (a view into the file's bytes). */
export function readHashObject(c: ByteCursor, what: string): Buffer {
  const classId = BigInt.asUintN(64, c.int64(`${what} class id`));
  if (classId !== HASH_OBJECT_CLASS_ID) c.fail(`${what}: class id 0x${classId.toString(16)} is not a HashObject`);
  c.expectInt32(1, `${what} class version`);
  c.expectInt32(SHA384_DIGEST_TYPE, `${what} digest type`);
  c.expectInt32(HASH_LENGTH, `${what} hash length`);
  return c.take(HASH_LENGTH, `${what} hash`);
}

export function readSignatureObject(c: ByteCursor, what: string): Buffer {
  const classId = BigInt.asUintN(64, c.int64(`${what} class id`));
  if (classId !== SIGNATURE_OBJECT_CLASS_ID) c.fail(`${what}: class id 0x${classId.toString(16)} is not a SignatureObject`);
  c.expectInt32(1, `${what} class version`);
  c.expectInt32(SHA384_WITH_RSA, `${what} signature type`);
  const length = c.int32(`${what} length`);
  if (length <= 0 || length > MAX_SIGNATURE_LENGTH) c.fail(`${what}: signature length ${length} is out of range`);
  c.expectInt32(101 - length, `${what} checksum`);
  return c.take(length, `${what} signature`);
}
