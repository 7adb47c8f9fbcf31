/**
 * The `entity.public_key` the importer derives from a protobuf `Key`: the lowercase hex of its one
 * primitive key (ed25519 2, RSA_3072 3, ECDSA_384 4, ECDSA_secp256k1 7), looked for in the key itself
 * or in a KeyList (6) or ThresholdKey (5, keys 2) holding exactly one key, at most two levels deep (the
 * REST API matches keys by hex prefix); null when there is none or the bytes are not a Key.
 */
import { readFields, WIRE_LENGTH } from './protobuf.js';

const PRIMITIVE = new Set([2, 3, 4, 7]);

function keysOfList(bytes: Uint8Array): Uint8Array[] {
  const keys: Uint8Array[] = [];
  readFields(bytes, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    keys.push(r.bytes());
    return true;
  });
  return keys;
}

function primitiveOf(key: Uint8Array, depth: number): Uint8Array | null {
  if (depth > 2) return null;
  let found: Uint8Array | null = null;
  readFields(key, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    const bytes = r.bytes();
    let list: Uint8Array | null = null;
    if (PRIMITIVE.has(field)) found = bytes;
    else if (field === 6) list = bytes;
    else if (field === 5) {
      readFields(bytes, (f, w, tr) => {
        if (f !== 2 || w !== WIRE_LENGTH) return false;
        list = tr.bytes();
        return true;
      });
    } else found = null;
    if (list !== null) {
      const keys = keysOfList(list);
      found = keys.length === 1 ? primitiveOf(keys[0]!, depth + 1) : null;
    }
    return true;
  });
  return found;
}

/** The hex public key of a serialized Key, or null. */
export function publicKeyOf(key: Uint8Array | null | undefined): string | null {
  if (!key || key.length === 0) return null;
  try {
    const primitive = primitiveOf(key, 1);
    return primitive === null ? null : Buffer.from(primitive).toString('hex');
  } catch {
    return null;
  }
}
