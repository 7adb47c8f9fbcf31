/**
 * Entity ids: `shard.realm.num` packed into one signed 64-bit integer as
 * |10-bit shard|16-bit realm|38-bit num|, the mirror node's storage encoding.
 */
export const NUM_BITS = 38n;
export const REALM_BITS = 16n;
export const SHARD_BITS = 10n;
export const MAX_NUM = (1n << NUM_BITS) - 1n;
export const MAX_REALM = (1n << REALM_BITS) - 1n;
export const MAX_SHARD = (1n << SHARD_BITS) - 1n;

export interface ShardRealm {
  shard: bigint;
  realm: bigint;
}

export interface EntityIdParts extends ShardRealm {
  num: bigint;
}

export function encodeEntityId(shard: bigint, realm: bigint, num: bigint): bigint {
  return BigInt.asIntN(64, (shard << (NUM_BITS + REALM_BITS)) | (realm << NUM_BITS) | num);
}

export function decodeEntityId(encoded: bigint): EntityIdParts {
  const unsigned = BigInt.asUintN(64, encoded);
  return {
    shard: (unsigned >> (NUM_BITS + REALM_BITS)) & MAX_SHARD,
    realm: (unsigned >> NUM_BITS) & MAX_REALM,
    num: unsigned & MAX_NUM,
  };
}

/** Renders an encoded id; a NULL id and any id whose num is 0 render as null, as the reference does. */
export function formatEntityId(encoded: bigint | null | undefined): string | null {
  if (encoded === null || encoded === undefined) return null;
  // shard 0, realm 0: the common case, without the BigInt shifts and masks (a hot path of every list)
  if (encoded > 0n && encoded <= MAX_NUM) return `0.0.${encoded}`;
  const { shard, realm, num } = decodeEntityId(encoded);
  return num === 0n ? null : `${shard}.${realm}.${num}`;
}

/** The num part of an encoded id (0 for NULL). */
export function entityNum(encoded: bigint | null | undefined): bigint {
  return encoded === null || encoded === undefined ? 0n : encoded & MAX_NUM;
}

const SHARD_REALM_NUM = /^(?:(\d{1,4})\.)?(\d{1,5})\.(\d{1,12})$/;
const BARE_NUM = /^-?\d{1,19}$/;
const EVM_PLAIN = /^(?:0x)?([0-9A-Fa-f]{40})$/;
const EVM_WITH_PREFIX = /^(?:(\d{1,4})\.)?(\d{1,5})\.([0-9A-Fa-f]{40})$/;
const LONG_ZERO_PREFIX = '0'.repeat(24);

/** A client-supplied entity reference: a packed id, or an opaque 20-byte EVM address to be resolved. */
export type EntityRef = { kind: 'id'; id: bigint } | { kind: 'evm'; address: Buffer };

function checkedId(shard: bigint, realm: bigint, num: bigint): EntityRef | null {
  if (shard > MAX_SHARD || realm > MAX_REALM || num > MAX_NUM || num < 0n) return null;
  return { kind: 'id', id: encodeEntityId(shard, realm, num) };
}

/**
 * Classifies a 40-hex EVM address: a long-zero address (12 zero bytes, then num ≤ 2^38-1) stands
 * for the entity with that num in the default shard/realm; anything else is opaque.
 */
export function evmAddressRef(hex40: string, system: ShardRealm): EntityRef {
  const lower = hex40.toLowerCase();
  if (lower.startsWith(LONG_ZERO_PREFIX)) {
    const num = BigInt('0x' + lower.slice(24));
    if (num <= MAX_NUM) return { kind: 'id', id: encodeEntityId(system.shard, system.realm, num) };
  }
  return { kind: 'evm', address: Buffer.from(lower, 'hex') };
}

/** The long-zero EVM address of an encoded id: `0x` + its num as 40 hex digits (shard and realm ignored); null for NULL or num 0. */
export function longZeroAddress(encoded: bigint | null | undefined): string | null {
  const num = entityNum(encoded);
  return num === 0n ? null : '0x' + num.toString(16).padStart(40, '0');
}

export interface ParseEntityOptions {
  allowEvmAddress?: boolean;
}

/**
 * Parses `shard.realm.num`, `realm.num`, a bare num, or (unless disallowed) an EVM address with an
 * optional `0x` or `shard.realm.` prefix. Returns null when the text is not a valid reference.
 */
export function parseEntityRef(text: string, system: ShardRealm, options: ParseEntityOptions = {}): EntityRef | null {
  const allowEvm = options.allowEvmAddress ?? true;
  let m = SHARD_REALM_NUM.exec(text);
  if (m) {
    const shard = m[1] === undefined ? system.shard : BigInt(m[1]);
    return checkedId(shard, BigInt(m[2]!), BigInt(m[3]!));
  }
  if (BARE_NUM.test(text)) {
    return checkedId(system.shard, system.realm, BigInt(text));
  }
  if (!allowEvm) return null;
  m = EVM_PLAIN.exec(text);
  if (m) return evmAddressRef(m[1]!, system);
  m = EVM_WITH_PREFIX.exec(text);
  if (m) {
    const shard = m[1] === undefined ? system.shard : BigInt(m[1]);
    if (shard !== system.shard || BigInt(m[2]!) !== system.realm) return null;
    return evmAddressRef(m[3]!, system);
  }
  return null;
}

/** Parses an entity id that must be numeric (no opaque EVM address); long-zero addresses are accepted. */
export function parseEntityIdValue(text: string, system: ShardRealm, allowLongZero = true): bigint | null {
  const ref = parseEntityRef(text, system, { allowEvmAddress: allowLongZero });
  return ref?.kind === 'id' ? ref.id : null;
}
