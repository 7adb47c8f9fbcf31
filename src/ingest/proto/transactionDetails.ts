/**
 * What the per-transaction rows need from a stream's `Transaction` (its body) and `TransactionRecord`
 * (or a block stream's `TransactionResult`): payer, valid start, fees, memo, the type's target entity,
 * the result and the transfers. Everything is read from the raw bytes; nothing is re-encoded.
 *
 * TransactionBody: transactionID 1 (transactionValidStart 1, accountID 2, scheduled 3, nonce 4),
 * nodeAccountID 2, transactionFee 3, transactionValidDuration 4 (seconds 1), memo 6, then the `data`
 * oneof whose field number is the type id. TransactionRecord: receipt 1 (status 1, accountID 2,
 * fileID 3, contractID 4, topicID 6, tokenID 10, scheduleID 12), transactionHash 2, transactionFee 6,
 * transferList 10, tokenTransferLists 11, paid_staking_rewards 18. TransactionResult (blocks):
 * status 1, parent_consensus_timestamp 3, transaction_fee_charged 5, transfer_list 6, token_transfer_lists 7, paid_staking_rewards 9.
 */
import type protobuf from 'protobufjs/minimal.js';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { encodeEntityId } from '../../domain/entityId.js';
import { timestampNanos } from './transactionRecord.js';
import { transactionBodyBytes } from './transactionBody.js';
import { KNOWN_TRANSACTION_TYPE_IDS } from '../../domain/transactionTypes.js';

const TYPE_IDS = new Set(KNOWN_TRANSACTION_TYPE_IDS);
/** the type the importer stores for a body it does not know */
export const UNKNOWN_TYPE = -1;

export interface AccountAmount {
  accountId: bigint;
  amount: bigint;
  isApproval: boolean;
}

export interface NftTransfer {
  /** null for a mint (no sender) */
  senderAccountId: bigint | null;
  /** null for a burn or wipe (no receiver) */
  receiverAccountId: bigint | null;
  serialNumber: bigint;
  isApproval: boolean;
}

export interface TokenTransfers {
  tokenId: bigint;
  transfers: AccountAmount[];
  nftTransfers: NftTransfer[];
}

export interface TransactionBodyDetails {
  type: number;
  payerAccountId: bigint;
  validStartNs: bigint;
  scheduled: boolean;
  nonce: number;
  nodeAccountId: bigint | null;
  maxFee: bigint | null;
  validDurationSeconds: bigint | null;
  memo: Buffer;
  /** the entity the body names as its target (FileUpdate's file, ContractCall's contract…), when it names one */
  targetEntityId: bigint | null;
  /** the file contents a FileCreate, FileUpdate or FileAppend carries */
  fileContents: Buffer | null;
  /** CryptoCreate's initial balance */
  initialBalance: bigint;
  /** the raw bytes of the body's `data` oneof (the type's own message), for the state appliers to read */
  data: Buffer | null;
}

export interface OutcomeDetails {
  result: number;
  chargedFee: bigint;
  transactionHash: Buffer | null;
  /** the entity the receipt names (created account, file, contract, topic, token, schedule) */
  receiptEntityId: bigint | null;
  transfers: AccountAmount[];
  tokenTransfers: TokenTransfers[];
  stakingRewards: AccountAmount[];
  /** a block stream result's parent_consensus_timestamp (record streams carry it in the item) */
  parentConsensusTimestamp: bigint | null;
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** AccountID, FileID, ContractID, TopicID, TokenID, ScheduleID: {shard 1, realm 2, num 3} → the encoded id (null for an alias). */
export function readEntityId(bytes: Uint8Array): bigint | null {
  let shard = 0n;
  let realm = 0n;
  let num: bigint | null = null;
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT || field > 3) return false;
    const v = int64(r);
    if (field === 1) shard = v;
    else if (field === 2) realm = v;
    else num = v;
    return true;
  });
  return num === null ? null : encodeEntityId(shard, realm, num);
}

/** AccountAmount {accountID 1, amount 2 (sint64), is_approval 3}. */
function readAccountAmount(bytes: Uint8Array): AccountAmount | null {
  const out = { accountId: null as bigint | null, amount: 0n, isApproval: false };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) out.accountId = readEntityId(r.bytes());
    else if (field === 2 && wire === WIRE_VARINT) out.amount = sint64(r);
    else if (field === 3 && wire === WIRE_VARINT) out.isApproval = r.bool();
    else return false;
    return true;
  });
  return out.accountId === null ? null : { accountId: out.accountId, amount: out.amount, isApproval: out.isApproval };
}

function sint64(r: protobuf.Reader): bigint {
  const v = r.sint64() as unknown as { low: number; high: number } | number;
  if (typeof v === 'number') return BigInt(v);
  return BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
}

/** TransferList {accountAmounts 1}, or the repeated AccountAmount of paid_staking_rewards. */
export function readTransferList(bytes: Uint8Array, into: AccountAmount[]): void {
  readFields(bytes, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    const aa = readAccountAmount(r.bytes());
    if (aa) into.push(aa);
    return true;
  });
}

/** NftTransfer {senderAccountID 1, receiverAccountID 2, serialNumber 3, is_approval 4}; an absent or 0.0.0 account is none. */
function readNftTransfer(bytes: Uint8Array): NftTransfer {
  const out: NftTransfer = { senderAccountId: null, receiverAccountId: null, serialNumber: 0n, isApproval: false };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) out.senderAccountId = readEntityId(r.bytes()) || null;
    else if (field === 2 && wire === WIRE_LENGTH) out.receiverAccountId = readEntityId(r.bytes()) || null;
    else if (field === 3 && wire === WIRE_VARINT) out.serialNumber = int64(r);
    else if (field === 4 && wire === WIRE_VARINT) out.isApproval = r.bool();
    else return false;
    return true;
  });
  return out;
}

/** TokenTransferList {token 1, transfers 2, nftTransfers 3}: in records, results and CryptoTransfer bodies alike. */
export function readTokenTransferList(bytes: Uint8Array): TokenTransfers | null {
  let tokenId: bigint | null = null;
  const transfers: AccountAmount[] = [];
  const nftTransfers: NftTransfer[] = [];
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) tokenId = readEntityId(r.bytes());
    else if (field === 2) {
      const aa = readAccountAmount(r.bytes());
      if (aa) transfers.push(aa);
    } else if (field === 3) nftTransfers.push(readNftTransfer(r.bytes()));
    else return false;
    return true;
  });
  return tokenId === null ? null : { tokenId, transfers, nftTransfers };
}

/**
 * The target entity's field in each type's body (field number of the id in the body message), for
 * the types that name one; creations take theirs from the receipt.
 */
const TARGET_FIELD: Record<number, number> = {
  7: 1, // ContractCall: contractID
  9: 1, // ContractUpdate: contractID
  12: 2, // CryptoDelete: deleteAccountID
  15: 2, // CryptoUpdate: accountIDToUpdate
  16: 2, // FileAppend: fileID
  18: 2, // FileDelete: fileID
  19: 1, // FileUpdate: fileID
  22: 1, // ContractDelete: contractID
  25: 1, // ConsensusUpdateTopic: topicID
  26: 1, // ConsensusDeleteTopic: topicID
  27: 1, // ConsensusSubmitMessage: topicID
  31: 1, // TokenFreeze: token
  32: 1, // TokenUnfreeze: token
  33: 1, // TokenGrantKyc: token
  34: 1, // TokenRevokeKyc: token
  35: 1, // TokenDelete: token
  36: 1, // TokenUpdate: token
  37: 1, // TokenMint: token
  38: 1, // TokenBurn: token
  39: 1, // TokenWipe: token
  40: 1, // TokenAssociate: account
  41: 1, // TokenDissociate: account
  43: 1, // ScheduleDelete: scheduleID
  44: 1, // ScheduleSign: scheduleID
  45: 1, // TokenFeeScheduleUpdate: token_id
};

/** The file contents field of FileCreate (4), FileUpdate (4) and FileAppend (4). */
const FILE_CONTENTS_TYPES = new Set([16, 17, 19]);

function readTransactionId(bytes: Uint8Array, out: TransactionBodyDetails): void {
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) out.validStartNs = timestampNanos(r.bytes());
    else if (field === 2 && wire === WIRE_LENGTH) out.payerAccountId = readEntityId(r.bytes()) ?? 0n;
    else if (field === 3 && wire === WIRE_VARINT) out.scheduled = r.bool();
    else if (field === 4 && wire === WIRE_VARINT) out.nonce = r.int32();
    else return false;
    return true;
  });
}

function readTypeBody(type: number, bytes: Uint8Array, out: TransactionBodyDetails): void {
  const target = TARGET_FIELD[type];
  readFields(bytes, (field, wire, r) => {
    if (wire === WIRE_LENGTH && field === target) out.targetEntityId = readEntityId(r.bytes());
    else if (wire === WIRE_LENGTH && field === 4 && FILE_CONTENTS_TYPES.has(type)) out.fileContents = view(r.bytes());
    else if (wire === WIRE_VARINT && field === 2 && type === 11) out.initialBalance = BigInt.asIntN(64, int64(r));
    else return false;
    return true;
  });
}

/** The body of a serialized record stream `Transaction` or block stream `SignedTransaction`; null without one. */
export function readTransactionBody(transaction: Uint8Array, signedTransaction = false): TransactionBodyDetails | null {
  const body = signedTransaction ? bodyOfSigned(transaction) : transactionBodyBytes(transaction);
  if (!body) return null;
  const out: TransactionBodyDetails = {
    type: UNKNOWN_TYPE,
    payerAccountId: 0n,
    validStartNs: 0n,
    scheduled: false,
    nonce: 0,
    nodeAccountId: null,
    maxFee: null,
    validDurationSeconds: null,
    memo: Buffer.alloc(0),
    targetEntityId: null,
    fileContents: null,
    initialBalance: 0n,
    data: null,
  };
  readFields(body, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) readTransactionId(r.bytes(), out);
    else if (field === 2 && wire === WIRE_LENGTH) out.nodeAccountId = readEntityId(r.bytes());
    else if (field === 3 && wire === WIRE_VARINT) out.maxFee = BigInt.asIntN(64, int64(r));
    else if (field === 4 && wire === WIRE_LENGTH) out.validDurationSeconds = timestampNanos(r.bytes()) / 1_000_000_000n;
    else if (field === 6 && wire === WIRE_LENGTH) out.memo = view(r.bytes());
    else if (wire === WIRE_LENGTH && TYPE_IDS.has(field) && out.type === UNKNOWN_TYPE) {
      out.type = field;
      const data = r.bytes();
      out.data = view(data);
      readTypeBody(field, data, out);
    } else return false;
    return true;
  });
  return out;
}

function bodyOfSigned(signed: Uint8Array): Uint8Array | null {
  let body: Uint8Array | null = null;
  readFields(signed, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    body = r.bytes();
    return true;
  });
  return body;
}

const RECEIPT_ENTITY_FIELDS = new Set([2, 3, 4, 6, 10, 12]);

function readReceipt(bytes: Uint8Array, out: OutcomeDetails): void {
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_VARINT) out.result = r.int32();
    else if (wire === WIRE_LENGTH && RECEIPT_ENTITY_FIELDS.has(field)) out.receiptEntityId ??= readEntityId(r.bytes());
    else return false;
    return true;
  });
}

function emptyOutcome(): OutcomeDetails {
  return {
    result: 0,
    chargedFee: 0n,
    transactionHash: null,
    receiptEntityId: null,
    transfers: [],
    tokenTransfers: [],
    stakingRewards: [],
    parentConsensusTimestamp: null,
  };
}

/** A record stream's TransactionRecord. */
export function readRecordOutcome(record: Uint8Array): OutcomeDetails {
  const out = emptyOutcome();
  readFields(record, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) readReceipt(r.bytes(), out);
    else if (field === 2 && wire === WIRE_LENGTH) out.transactionHash = view(r.bytes());
    else if (field === 6 && wire === WIRE_VARINT) out.chargedFee = BigInt.asIntN(64, int64(r));
    else if (field === 10 && wire === WIRE_LENGTH) readTransferList(r.bytes(), out.transfers);
    else if (field === 11 && wire === WIRE_LENGTH) {
      const list = readTokenTransferList(r.bytes());
      if (list) out.tokenTransfers.push(list);
    } else if (field === 18 && wire === WIRE_LENGTH) {
      const aa = readAccountAmount(r.bytes());
      if (aa) out.stakingRewards.push(aa);
    } else return false;
    return true;
  });
  return out;
}

/** A block stream's TransactionResult (the hash is SHA-384 of the signed transaction, computed by the caller). */
export function readBlockOutcome(result: Uint8Array): OutcomeDetails {
  const out = emptyOutcome();
  readFields(result, (field, wire, r) => {
    if (field === 1 && wire === WIRE_VARINT) out.result = r.int32();
    else if (field === 3 && wire === WIRE_LENGTH) out.parentConsensusTimestamp = timestampNanos(r.bytes());
    else if (field === 5 && wire === WIRE_VARINT) out.chargedFee = BigInt.asIntN(64, int64(r));
    else if (field === 6 && wire === WIRE_LENGTH) readTransferList(r.bytes(), out.transfers);
    else if (field === 7 && wire === WIRE_LENGTH) {
      const list = readTokenTransferList(r.bytes());
      if (list) out.tokenTransfers.push(list);
    } else if (field === 9 && wire === WIRE_LENGTH) {
      const aa = readAccountAmount(r.bytes());
      if (aa) out.stakingRewards.push(aa);
    } else return false;
    return true;
  });
  return out;
}
