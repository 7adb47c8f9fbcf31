/**
 * The EVM address of an account alias, as the importer (and services' AliasManager) derive it: a
 * 20-byte alias is the address itself; a Key holding a 33-byte compressed ECDSA secp256k1 key
 * (field 7) gives the last 20 bytes of the Keccak-256 of the uncompressed point; anything else none.
 */
import { ECDH } from 'node:crypto';
import { keccak256 } from './keccak.js';
import { readFields, WIRE_LENGTH } from './protobuf.js';

const EVM_ADDRESS_LENGTH = 20;
const COMPRESSED_KEY_LENGTH = 33;

export function aliasToEvmAddress(alias: Uint8Array | null | undefined): Buffer | null {
  if (!alias || (alias.length !== EVM_ADDRESS_LENGTH && alias.length < COMPRESSED_KEY_LENGTH)) return null;
  if (alias.length === EVM_ADDRESS_LENGTH) return Buffer.from(alias);
  try {
    let ecdsa: Uint8Array | null = null;
    let other = false;
    readFields(alias, (field, wire, r) => {
      if (field === 7 && wire === WIRE_LENGTH) ecdsa = r.bytes();
      else other = true;
      return field === 7 && wire === WIRE_LENGTH;
    });
    const key = ecdsa as Uint8Array | null;
    if (other || key === null || key.length !== COMPRESSED_KEY_LENGTH) return null;
    const point = ECDH.convertKey(Buffer.from(key), 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
    return keccak256(point.subarray(1)).subarray(12);
  } catch {
    return null;
  }
}
