/**
 * HAPI messages of the round-trip scenario, written field by field: a `Transaction` (signed
 * transaction bytes around a `TransactionBody`) and its `TransactionRecord`, for any transaction
 * type, with hbar, token and NFT transfer lists. Field numbers are HAPI's (services/*.proto).
 */
import { createHash } from 'node:crypto';
import { bytes, int, message, sint, string } from '../protoWriter.js';

export const SUCCESS = 22;
/** ResponseCodeEnum INSUFFICIENT_ACCOUNT_BALANCE: a failed transaction whose fees are charged */
export const INSUFFICIENT_ACCOUNT_BALANCE = 28;

/** Timestamp {seconds 1, nanos 2} */
export function timestamp(field: number, nanos: bigint): Buffer {
  const seconds = nanos / 1_000_000_000n;
  const rest = nanos % 1_000_000_000n;
  return message(field, int(1, seconds), ...(rest === 0n ? [] : [int(2, rest)]));
}

/** AccountID, TokenID, TopicID…: {shard 1, realm 2, num 3}; shard and realm 0 are left out */
export function entityRef(field: number, num: bigint): Buffer {
  return message(field, int(3, num));
}

/** AccountID by alias (field 4): an EVM address or a serialized key */
export function aliasRef(field: number, alias: Buffer): Buffer {
  return message(field, bytes(4, alias));
}

/** Key {ed25519 2 | ECDSA_secp256k1 7}, serialized: what the importer stores in `key` */
export function keyBytes(kind: 'ed25519' | 'ecdsa', raw: Buffer): Buffer {
  return bytes(kind === 'ed25519' ? 2 : 7, raw);
}

/** google.protobuf wrappers: {value 1} */
export function wrapped(field: number, value: Buffer): Buffer {
  return message(field, value);
}

export function duration(field: number, seconds: bigint): Buffer {
  return message(field, int(1, seconds));
}

export interface NftMove {
  sender: bigint | null;
  receiver: bigint | null;
  serial: bigint;
  isApproval?: boolean;
}

export interface TokenMoves {
  token: bigint;
  /** fungible: [account, amount] */
  amounts?: [bigint, bigint][];
  nfts?: NftMove[];
}

function accountAmount(account: bigint, amount: bigint): Buffer {
  return message(1, entityRef(1, account), sint(2, amount));
}

export function transferList(field: number, amounts: [bigint, bigint][]): Buffer {
  return message(field, ...amounts.map(([account, amount]) => accountAmount(account, amount)));
}

/** TokenTransferList {token 1, transfers 2 (AccountAmount), nftTransfers 3 (sender 1, receiver 2, serial 3, is_approval 4)} */
export function tokenTransferList(field: number, moves: TokenMoves): Buffer {
  return message(
    field,
    entityRef(1, moves.token),
    ...(moves.amounts ?? []).map(([account, amount]) => message(2, entityRef(1, account), sint(2, amount))),
    ...(moves.nfts ?? []).map((n) =>
      message(
        3,
        ...(n.sender === null ? [] : [entityRef(1, n.sender)]),
        ...(n.receiver === null ? [] : [entityRef(2, n.receiver)]),
        int(3, n.serial),
        ...(n.isApproval ? [int(4, true)] : []),
      ),
    ),
  );
}

export interface ItemSpec {
  consensusTimestamp: bigint;
  payer: bigint;
  node: bigint;
  validStart: bigint;
  /** child records: the nonce of their transaction id and their parent's timestamp */
  nonce?: number;
  parent?: bigint;
  maxFee: bigint;
  memo: string;
  /** the field number of the body's `data` oneof, which is the transaction type id */
  type: number;
  data: Buffer;
  result?: number;
  /** TransactionReceipt fields after the status (accountID 2, tokenID 10, newTotalSupply 11, serialNumbers 14…) */
  receipt?: Buffer[];
  fee: bigint;
  transfers: [bigint, bigint][];
  tokenTransfers?: TokenMoves[];
  /** paid_staking_rewards (18): [account, amount] */
  stakingRewards?: [bigint, bigint][];
  /** further TransactionRecord fields (alias 16, evm_address 21…) */
  recordExtra?: Buffer[];
}

export interface EncodedItem {
  consensusTimestamp: bigint;
  transaction: Buffer;
  record: Buffer;
  /** SHA-384 of the signed transaction bytes, the record's transactionHash */
  hash: Buffer;
}

/** The Transaction (signedTransactionBytes 5) and TransactionRecord of one item. */
export function encodeItem(spec: ItemSpec, signatureSeed: number): EncodedItem {
  const transactionId = (field: number) =>
    message(field, timestamp(1, spec.validStart), entityRef(2, spec.payer), ...(spec.nonce ? [int(4, spec.nonce)] : []));
  const body = Buffer.concat([
    transactionId(1),
    entityRef(2, spec.node),
    int(3, spec.maxFee),
    duration(4, 120n),
    ...(spec.memo ? [string(6, spec.memo)] : []),
    bytes(spec.type, spec.data),
  ]);
  const signature = createHash('sha512').update(`${signatureSeed}`).digest();
  // children are not signed: the network writes them
  const sigMap = spec.nonce ? [] : [message(2, message(1, bytes(1, signature.subarray(0, 6)), bytes(3, signature)))];
  const signedTransactionBytes = Buffer.concat([bytes(1, body), ...sigMap]);
  const hash = createHash('sha384').update(signedTransactionBytes).digest();
  const record = Buffer.concat([
    message(1, int(1, spec.result ?? SUCCESS), ...(spec.receipt ?? [])),
    bytes(2, hash),
    timestamp(3, spec.consensusTimestamp),
    transactionId(4),
    ...(spec.memo ? [string(5, spec.memo)] : []),
    int(6, spec.fee),
    transferList(10, spec.transfers),
    ...(spec.tokenTransfers ?? []).map((t) => tokenTransferList(11, t)),
    ...(spec.parent === undefined ? [] : [timestamp(15, spec.parent)]),
    ...(spec.stakingRewards ?? []).map(([account, amount]) => message(18, entityRef(1, account), sint(2, amount))),
    ...(spec.recordExtra ?? []),
  ]);
  return { consensusTimestamp: spec.consensusTimestamp, transaction: bytes(5, signedTransactionBytes), record, hash };
}
