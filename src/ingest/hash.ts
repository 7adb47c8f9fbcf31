import { createHash } from 'node:crypto';

/** Length of every hash in the record and block streams (SHA-384). */
export const HASH_LENGTH = 48;

export function sha384(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha384');
  for (const p of parts) h.update(p);
  return h.digest();
}

export const ZERO_HASH: Buffer = Buffer.alloc(HASH_LENGTH);
