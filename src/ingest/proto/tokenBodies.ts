/**
 * What the token applier reads of the token transactions' bodies (`body.data`, the type's own message)
 * and of their TransactionRecord beyond what the per-transaction rows need: the receipt's
 * new_total_supply (11) and serialNumbers (14) and the automatic_token_associations (14: token_id 1,
 * account_id 2); the NFT transfers come from the shared token transfer list reader
 * (transactionDetails.ts), flattened one per NFT. Read from the raw bytes, field
 * numbers as in the HAPI protobufs; an account named by alias reads as null (the applier skips it).
 */
import type protobuf from 'protobufjs/minimal.js';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { readEntityId, type TokenTransfers } from './transactionDetails.js';

/** An entity id; null when absent, an alias, or 0.0.0 (the record's "no account", as a mint's sender). */
function id(bytes: Uint8Array): bigint | null {
  const v = readEntityId(bytes);
  return v === 0n ? null : v;
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** repeated int64, packed (as written) or one per field */
function readInt64s(wire: number, r: protobuf.Reader, into: bigint[]): void {
  if (wire === WIRE_VARINT) {
    into.push(int64(r));
    return;
  }
  const end = r.uint32() + r.pos;
  while (r.pos < end) into.push(int64(r));
}

/** google.protobuf.BoolValue / BytesValue / StringValue {value 1} */
function wrapped<T>(bytes: Uint8Array, read: (wire: number, r: protobuf.Reader) => T | undefined, empty: T): T {
  let out = empty;
  readFields(bytes, (field, wire, r) => {
    if (field !== 1) return false;
    const v = read(wire, r);
    if (v === undefined) return false;
    out = v;
    return true;
  });
  return out;
}

const boolValue = (bytes: Uint8Array) => wrapped(bytes, (w, r) => (w === WIRE_VARINT ? r.bool() : undefined), false);
const bytesValue = (bytes: Uint8Array) => wrapped(bytes, (w, r) => (w === WIRE_LENGTH ? view(r.bytes()) : undefined), Buffer.alloc(0));

// TokenCreateTransactionBody
export interface TokenCreateBody {
  name: string;
  symbol: string;
  decimals: bigint;
  initialSupply: bigint;
  treasury: bigint | null;
  adminKey: Buffer | null;
  kycKey: Buffer | null;
  freezeKey: Buffer | null;
  wipeKey: Buffer | null;
  supplyKey: Buffer | null;
  freezeDefault: boolean;
  /** 0 FUNGIBLE_COMMON, 1 NON_FUNGIBLE_UNIQUE */
  tokenType: number;
  /** 0 INFINITE, 1 FINITE */
  supplyType: number;
  maxSupply: bigint;
  feeScheduleKey: Buffer | null;
  pauseKey: Buffer | null;
  metadata: Buffer;
  metadataKey: Buffer | null;
}

export function readTokenCreate(data: Uint8Array): TokenCreateBody {
  const out: TokenCreateBody = {
    name: '',
    symbol: '',
    decimals: 0n,
    initialSupply: 0n,
    treasury: null,
    adminKey: null,
    kycKey: null,
    freezeKey: null,
    wipeKey: null,
    supplyKey: null,
    freezeDefault: false,
    tokenType: 0,
    supplyType: 0,
    maxSupply: 0n,
    feeScheduleKey: null,
    pauseKey: null,
    metadata: Buffer.alloc(0),
    metadataKey: null,
  };
  readFields(data, (field, wire, r) => {
    if (wire === WIRE_LENGTH) {
      const b = r.bytes();
      if (field === 1) out.name = Buffer.from(b).toString('utf8');
      else if (field === 2) out.symbol = Buffer.from(b).toString('utf8');
      else if (field === 5) out.treasury = id(b);
      else if (field === 6) out.adminKey = Buffer.from(b);
      else if (field === 7) out.kycKey = Buffer.from(b);
      else if (field === 8) out.freezeKey = Buffer.from(b);
      else if (field === 9) out.wipeKey = Buffer.from(b);
      else if (field === 10) out.supplyKey = Buffer.from(b);
      else if (field === 20) out.feeScheduleKey = Buffer.from(b);
      else if (field === 22) out.pauseKey = Buffer.from(b);
      else if (field === 23) out.metadata = Buffer.from(b);
      else if (field === 24) out.metadataKey = Buffer.from(b);
      // expiry 13, auto renew 14/15, memo 16, custom fees 21 belong to the entity and fee tables
      return true;
    }
    if (wire !== WIRE_VARINT) return false;
    if (field === 3) out.decimals = BigInt.asUintN(32, int64(r));
    else if (field === 4) out.initialSupply = BigInt.asUintN(64, int64(r));
    else if (field === 11) out.freezeDefault = r.bool();
    else if (field === 17) out.tokenType = r.int32();
    else if (field === 18) out.supplyType = r.int32();
    else if (field === 19) out.maxSupply = int64(r);
    else return false;
    return true;
  });
  return out;
}

// TokenUpdateTransactionBody: what changes in `token` (the admin key, expiry, auto renew and memo are the entity's)
export interface TokenUpdateBody {
  token: bigint | null;
  symbol: string;
  name: string;
  treasury: bigint | null;
  kycKey: Buffer | null;
  freezeKey: Buffer | null;
  wipeKey: Buffer | null;
  supplyKey: Buffer | null;
  feeScheduleKey: Buffer | null;
  pauseKey: Buffer | null;
  /** null when the body leaves the metadata as it is */
  metadata: Buffer | null;
  metadataKey: Buffer | null;
}

export function readTokenUpdate(data: Uint8Array): TokenUpdateBody {
  const out: TokenUpdateBody = {
    token: null,
    symbol: '',
    name: '',
    treasury: null,
    kycKey: null,
    freezeKey: null,
    wipeKey: null,
    supplyKey: null,
    feeScheduleKey: null,
    pauseKey: null,
    metadata: null,
    metadataKey: null,
  };
  readFields(data, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    const b = r.bytes();
    if (field === 1) out.token = id(b);
    else if (field === 2) out.symbol = Buffer.from(b).toString('utf8');
    else if (field === 3) out.name = Buffer.from(b).toString('utf8');
    else if (field === 4) out.treasury = id(b);
    else if (field === 6) out.kycKey = Buffer.from(b);
    else if (field === 7) out.freezeKey = Buffer.from(b);
    else if (field === 8) out.wipeKey = Buffer.from(b);
    else if (field === 9) out.supplyKey = Buffer.from(b);
    else if (field === 14) out.feeScheduleKey = Buffer.from(b);
    else if (field === 15) out.pauseKey = Buffer.from(b);
    else if (field === 16) out.metadata = bytesValue(b);
    else if (field === 17) out.metadataKey = Buffer.from(b);
    else return false;
    return true;
  });
  return out;
}

/** The bodies naming a token and one account: freeze/unfreeze/grant/revoke {token 1, account 2}. */
export function readTokenAndAccount(data: Uint8Array): { token: bigint | null; account: bigint | null } {
  const out = { token: null as bigint | null, account: null as bigint | null };
  readFields(data, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || field > 2) return false;
    if (field === 1) out.token = id(r.bytes());
    else out.account = id(r.bytes());
    return true;
  });
  return out;
}

/** TokenAssociate / TokenDissociate {account 1, tokens 2}. */
export function readAssociation(data: Uint8Array): { account: bigint | null; tokens: bigint[] } {
  const out = { account: null as bigint | null, tokens: [] as bigint[] };
  readFields(data, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || field > 2) return false;
    const v = id(r.bytes());
    if (field === 1) out.account = v;
    else if (v !== null) out.tokens.push(v);
    return true;
  });
  return out;
}

/** TokenPause / TokenUnpause / TokenDelete {token 1}. */
export function readTokenOnly(data: Uint8Array): bigint | null {
  return readTokenAndAccount(data).token;
}

/** TokenMint {token 1, amount 2, metadata 3 (repeated bytes)}. */
export function readTokenMint(data: Uint8Array): { token: bigint | null; metadata: Buffer[] } {
  const out = { token: null as bigint | null, metadata: [] as Buffer[] };
  readFields(data, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) out.token = id(r.bytes());
    else if (field === 3) out.metadata.push(Buffer.from(r.bytes()));
    else return false;
    return true;
  });
  return out;
}

/** TokenBurn {token 1, amount 2, serialNumbers 3} and TokenWipeAccount {token 1, account 2, amount 3, serialNumbers 4}. */
export function readTokenSerials(type: 'burn' | 'wipe', data: Uint8Array): { token: bigint | null; serials: bigint[] } {
  const serialField = type === 'burn' ? 3 : 4;
  const out = { token: null as bigint | null, serials: [] as bigint[] };
  readFields(data, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) out.token = id(r.bytes());
    else if (field === serialField && (wire === WIRE_LENGTH || wire === WIRE_VARINT)) readInt64s(wire, r, out.serials);
    else return false;
    return true;
  });
  return out;
}

/** TokenUpdateNfts {token 1, serial_numbers 2, metadata 3 (BytesValue)}; metadata null when not set. */
export function readTokenUpdateNfts(data: Uint8Array): { token: bigint | null; serials: bigint[]; metadata: Buffer | null } {
  const out = { token: null as bigint | null, serials: [] as bigint[], metadata: null as Buffer | null };
  readFields(data, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) out.token = id(r.bytes());
    else if (field === 2 && (wire === WIRE_LENGTH || wire === WIRE_VARINT)) readInt64s(wire, r, out.serials);
    else if (field === 3 && wire === WIRE_LENGTH) out.metadata = bytesValue(r.bytes());
    else return false;
    return true;
  });
  return out;
}

export interface NftApproval {
  token: bigint | null;
  /** null: the payer */
  owner: bigint | null;
  spender: bigint | null;
  serials: bigint[];
  approvedForAll: boolean | null;
  delegatingSpender: bigint | null;
}

/** CryptoApproveAllowance's nftAllowances (2): NftAllowance {tokenId 1, owner 2, spender 3, serial_numbers 4, approved_for_all 5, delegating_spender 6}. */
export function readNftApprovals(data: Uint8Array): NftApproval[] {
  const out: NftApproval[] = [];
  readFields(data, (field, wire, r) => {
    if (field !== 2 || wire !== WIRE_LENGTH) return false;
    const a: NftApproval = { token: null, owner: null, spender: null, serials: [], approvedForAll: null, delegatingSpender: null };
    readFields(r.bytes(), (f, w, rr) => {
      if (w === WIRE_LENGTH && f === 1) a.token = id(rr.bytes());
      else if (w === WIRE_LENGTH && f === 2) a.owner = id(rr.bytes());
      else if (w === WIRE_LENGTH && f === 3) a.spender = id(rr.bytes());
      else if (f === 4 && (w === WIRE_LENGTH || w === WIRE_VARINT)) readInt64s(w, rr, a.serials);
      else if (w === WIRE_LENGTH && f === 5) a.approvedForAll = boolValue(rr.bytes());
      else if (w === WIRE_LENGTH && f === 6) a.delegatingSpender = id(rr.bytes());
      else return false;
      return true;
    });
    out.push(a);
    return true;
  });
  return out;
}

/** CryptoDeleteAllowance's nftAllowances (2): NftRemoveAllowance {token_id 1, owner 2, serial_numbers 3}. */
export function readNftRemovals(data: Uint8Array): { token: bigint | null; owner: bigint | null; serials: bigint[] }[] {
  const out: { token: bigint | null; owner: bigint | null; serials: bigint[] }[] = [];
  readFields(data, (field, wire, r) => {
    if (field !== 2 || wire !== WIRE_LENGTH) return false;
    const a = { token: null as bigint | null, owner: null as bigint | null, serials: [] as bigint[] };
    readFields(r.bytes(), (f, w, rr) => {
      if (w === WIRE_LENGTH && f === 1) a.token = id(rr.bytes());
      else if (w === WIRE_LENGTH && f === 2) a.owner = id(rr.bytes());
      else if (f === 3 && (w === WIRE_LENGTH || w === WIRE_VARINT)) readInt64s(w, rr, a.serials);
      else return false;
      return true;
    });
    out.push(a);
    return true;
  });
  return out;
}

/**
 * TokenClaimAirdrop / TokenCancelAirdrop {pending_airdrops 1}: PendingAirdropId {sender_id 1,
 * receiver_id 2, fungible_token_type 3 (TokenID) | non_fungible_token 4 (NftID {token_ID 1, serial_number 2})}.
 */
export function readPendingAirdrops(data: Uint8Array): { sender: bigint | null; receiver: bigint | null; token: bigint | null }[] {
  const out: { sender: bigint | null; receiver: bigint | null; token: bigint | null }[] = [];
  readFields(data, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    const a = { sender: null as bigint | null, receiver: null as bigint | null, token: null as bigint | null };
    readFields(r.bytes(), (f, w, rr) => {
      if (w !== WIRE_LENGTH || f > 4) return false;
      if (f === 1) a.sender = id(rr.bytes());
      else if (f === 2) a.receiver = id(rr.bytes());
      else if (f === 3) a.token = id(rr.bytes());
      else
        readFields(rr.bytes(), (nf, nw, nr) => {
          if (nf !== 1 || nw !== WIRE_LENGTH) return false;
          a.token = id(nr.bytes());
          return true;
        });
      return true;
    });
    out.push(a);
    return true;
  });
  return out;
}

export interface NftTransfer {
  tokenId: bigint;
  sender: bigint | null;
  receiver: bigint | null;
  serial: bigint;
  isApproval: boolean;
}

export interface TokenRecordDetails {
  newTotalSupply: bigint | null;
  serialNumbers: bigint[];
  automaticAssociations: { tokenId: bigint; accountId: bigint }[];
}

function readReceipt(bytes: Uint8Array, out: TokenRecordDetails): void {
  readFields(bytes, (field, wire, r) => {
    if (field === 11 && wire === WIRE_VARINT) out.newTotalSupply = BigInt.asUintN(64, int64(r));
    else if (field === 14 && (wire === WIRE_LENGTH || wire === WIRE_VARINT)) readInt64s(wire, r, out.serialNumbers);
    else return false;
    return true;
  });
}

/** The NFT transfers of token transfer lists, one entry per NFT with its token. */
export function flattenNftTransfers(lists: readonly TokenTransfers[]): NftTransfer[] {
  const out: NftTransfer[] = [];
  for (const list of lists) {
    for (const t of list.nftTransfers) {
      out.push({
        tokenId: list.tokenId,
        sender: t.senderAccountId,
        receiver: t.receiverAccountId,
        serial: t.serialNumber,
        isApproval: t.isApproval,
      });
    }
  }
  return out;
}

function readAssociationRecord(bytes: Uint8Array): { tokenId: bigint; accountId: bigint } | null {
  let tokenId: bigint | null = null;
  let accountId: bigint | null = null;
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || field > 2) return false;
    if (field === 1) tokenId = id(r.bytes());
    else accountId = id(r.bytes());
    return true;
  });
  return tokenId !== null && accountId !== null ? { tokenId, accountId } : null;
}

/** The token parts of a serialized TransactionRecord. */
export function readTokenRecord(record: Uint8Array): TokenRecordDetails {
  const out: TokenRecordDetails = { newTotalSupply: null, serialNumbers: [], automaticAssociations: [] };
  readFields(record, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) readReceipt(r.bytes(), out);
    else if (field === 14 && wire === WIRE_LENGTH) {
      const a = readAssociationRecord(r.bytes());
      if (a) out.automaticAssociations.push(a);
    } else return false;
    return true;
  });
  return out;
}
