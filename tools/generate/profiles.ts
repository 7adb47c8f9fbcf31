/**
 * Attributes of entities that never depend on the transaction stream: derived from (seed, entity
 * number[, version]) alone, so tests and the benchmark can recompute them for any entity.
 */
import { keyedRng } from './random.js';

const SALT = { kind: 1, profile: 2, settings: 3, rotation: 4, contract: 5, token: 6, metadata: 7 } as const;

export type KeyKind = 'ED25519' | 'ECDSA_SECP256K1' | 'THRESHOLD';

/** The kind of an account's key: about a third ECDSA (EVM-style accounts), a few threshold keys. */
export function accountKeyKind(seed: number, num: number): KeyKind {
  const u = keyedRng(seed, SALT.kind, num).float();
  return u < 0.35 ? 'ECDSA_SECP256K1' : u < 0.97 ? 'ED25519' : 'THRESHOLD';
}

export interface AccountProfile {
  kind: KeyKind;
  /** serialized protobuf Key of version 0 */
  key: Buffer;
  /** hex of the raw public key (entity.public_key), null for threshold keys */
  publicKey: string | null;
  alias: Buffer | null;
  evmAddress: Buffer | null;
}

const ED25519_PREFIX = Buffer.from('1220', 'hex');
const ECDSA_PREFIX = Buffer.from('3a21', 'hex');

function ed25519Key(raw: Buffer): Buffer {
  return Buffer.concat([ED25519_PREFIX, raw]);
}

/** A 2-of-3 ThresholdKey of ed25519 keys: rendered as `ProtobufEncoded`. */
function thresholdKey(raws: Buffer[]): Buffer {
  const keyList = Buffer.concat(raws.map((raw) => Buffer.concat([Buffer.from([0x0a, 34]), ed25519Key(raw)])));
  const threshold = Buffer.concat([Buffer.from([0x08, 0x02, 0x12, keyList.length]), keyList]);
  return Buffer.concat([Buffer.from([0x2a, threshold.length]), threshold]);
}

export function accountProfile(seed: number, num: number): AccountProfile {
  const kind = accountKeyKind(seed, num);
  const r = keyedRng(seed, SALT.profile, num);
  if (kind === 'ECDSA_SECP256K1') {
    const raw = Buffer.concat([Buffer.from([0x02 | (r.uint32() & 1)]), r.bytes(32)]);
    const key = Buffer.concat([ECDSA_PREFIX, raw]);
    const evmAddress = r.bytes(20);
    const u = r.float();
    // hollow accounts created by a transfer to an EVM address keep it as alias; others were auto-created from the key
    const alias = u < 0.5 ? evmAddress : u < 0.75 ? key : null;
    return { kind, key, publicKey: raw.toString('hex'), alias, evmAddress };
  }
  if (kind === 'ED25519') {
    const raw = r.bytes(32);
    const key = ed25519Key(raw);
    return { kind, key, publicKey: raw.toString('hex'), alias: r.chance(0.2) ? key : null, evmAddress: null };
  }
  return { kind, key: thresholdKey([r.bytes(32), r.bytes(32), r.bytes(32)]), publicKey: null, alias: null, evmAddress: null };
}

/** The key of an account version: ed25519 accounts without an alias rotate their key on some updates. */
export function accountKey(seed: number, num: number, version: number, profile: AccountProfile): Buffer {
  if (version === 0 || profile.kind !== 'ED25519' || profile.alias !== null) return profile.key;
  const r = keyedRng(seed, SALT.rotation, num, version);
  return r.chance(0.5) ? ed25519Key(r.bytes(32)) : accountKey(seed, num, version - 1, profile);
}

export interface AccountSettings {
  memo: string;
  /** -1 when not staked to a node */
  stakedNodeId: number;
  /** 0 when not staked to an account */
  stakedAccountNum: number;
  declineReward: boolean;
  maxAutomaticTokenAssociations: number;
  receiverSigRequired: boolean;
}

/** What an account update can change; version 0 is the state at creation. */
export function accountSettings(
  seed: number,
  num: number,
  version: number,
  nodes: number,
  firstAccount: number,
  accounts: number,
): AccountSettings {
  const r = keyedRng(seed, SALT.settings, num, version);
  const u = r.float();
  const stakedNodeId = u < 0.25 ? r.int(nodes) : -1;
  let stakedAccountNum = 0;
  if (u >= 0.25 && u < 0.3) {
    stakedAccountNum = firstAccount + r.int(Math.min(accounts, 1000));
    if (stakedAccountNum === num) stakedAccountNum = 0;
  }
  const memoKind = r.float();
  return {
    memo: memoKind < 0.75 ? '' : memoKind < 0.9 ? `account ${num}` : `wallet ${num} v${version}`,
    stakedNodeId,
    stakedAccountNum,
    declineReward: r.chance(0.05),
    maxAutomaticTokenAssociations: r.pick([0, 0, 0, 10, 100, -1]),
    receiverSigRequired: r.chance(0.02),
  };
}

export interface ContractProfile {
  evmAddress: Buffer | null;
  runtimeBytecode: Buffer;
  memo: string;
}

export function contractProfile(seed: number, num: number): ContractProfile {
  const r = keyedRng(seed, SALT.contract, num);
  return {
    // contracts deployed with CREATE2 or through the EVM have an EVM address of their own
    evmAddress: r.chance(0.5) ? r.bytes(20) : null,
    runtimeBytecode: Buffer.concat([Buffer.from('608060405234801561001057600080fd5b50', 'hex'), r.bytes(32 + r.int(480))]),
    memo: r.chance(0.3) ? `contract ${num}` : '',
  };
}

export interface TokenProfile {
  name: string;
  symbol: string;
  decimals: number;
  adminKey: Buffer;
  deleted: boolean;
}

export function tokenProfile(seed: number, num: number, nft: boolean): TokenProfile {
  const r = keyedRng(seed, SALT.token, num);
  const symbol = (nft ? 'NFT' : 'TK') + num.toString(36).toUpperCase();
  return {
    name: nft ? `Collection ${num}` : `Token ${num}`,
    symbol,
    decimals: nft ? 0 : r.pick([0, 2, 6, 8, 8, 8, 18]),
    adminKey: ed25519Key(r.bytes(32)),
    deleted: r.chance(0.005),
  };
}

/** NFT metadata as minted: an IPFS URI, as most collections use. */
export function nftMetadata(seed: number, tokenNum: number, serial: number): Buffer {
  const r = keyedRng(seed, SALT.metadata, tokenNum);
  const cid = 'bafybei' + r.bytes(20).toString('hex').slice(0, 40);
  return Buffer.from(`ipfs://${cid}/${serial}.json`);
}

/** An ed25519 admin key for entities whose key is not otherwise modelled (topics, files, contracts). */
export function adminKey(seed: number, num: number): Buffer {
  return ed25519Key(keyedRng(seed, SALT.profile, num, 1).bytes(32));
}
