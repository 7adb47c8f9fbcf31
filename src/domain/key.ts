import { hexOf, type Bytes } from './bytes.js';

/** The API rendering of a protobuf `Key` column (entity.key, transaction.batch_key). */
export interface KeyView {
  _type: 'ED25519' | 'ECDSA_SECP256K1' | 'ProtobufEncoded';
  key: string;
}

// A bare key, a KeyList holding exactly that key, or a 1-of-1 ThresholdKey holding exactly that key.
const ED25519 = /^(?:1220|32240a221220|2a28080112240a221220)([0-9a-f]{64})$/;
const ECDSA_SECP256K1 = /^(?:3a21|32250a233a21|2a29080112250a233a21)([0-9a-f]{66})$/;
const EMPTY_KEY_LIST = '3200';

export function formatKey(bytes: Bytes | null | undefined): KeyView | null {
  if (bytes === null || bytes === undefined) return null;
  const hex = hexOf(bytes);
  if (hex === EMPTY_KEY_LIST) return null;
  let m = ED25519.exec(hex);
  if (m) return { _type: 'ED25519', key: m[1]! };
  m = ECDSA_SECP256K1.exec(hex);
  if (m) return { _type: 'ECDSA_SECP256K1', key: m[1]! };
  return { _type: 'ProtobufEncoded', key: hex };
}
