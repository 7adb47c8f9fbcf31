/** SHA384withRSA (PKCS#1 v1.5) over a 48-byte hash, as the nodes sign file and metadata hashes. */
import { type KeyObject, verify } from 'node:crypto';

export function verifyHashSignature(hash: Uint8Array, signature: Uint8Array, publicKey: KeyObject): boolean {
  try {
    return verify('sha384', hash, publicKey, signature);
  } catch {
    // a signature of the wrong length or a malformed one is simply not valid
    return false;
  }
}
