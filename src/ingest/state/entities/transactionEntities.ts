/**
 * The entity changes of one transaction, in the importer's order: first the change its type makes to
 * the entity it creates, updates or deletes (successful transactions only) or an EthereumTransaction's
 * signer nonce, then one balance change per hbar transfer of its record (failed ones too: they pay
 * fees), then the stake period restart of each account paid a staking reward.
 */
import { aliasToEvmAddress } from '../../../domain/aliasEvmAddress.js';
import { decodeEntityId } from '../../../domain/entityId.js';
import { publicKeyOf } from '../../../domain/publicKey.js';
import protobuf from 'protobufjs/minimal.js';
import {
  ETHEREUM_TRANSACTION,
  type EntityBody,
  readEntityBody,
  readEthereumNonce,
  readRecordEntityDetails,
  TYPE,
} from '../../proto/entityBodies.js';
import type { DecodedTransaction } from '../../writers/transactionRows.js';
import type { EntityAttributes, EntityChanges, EntityType, EntityVersion } from './entityVersion.js';

/** Successful results: SUCCESS, FEE_SCHEDULE_FILE_PART_UPLOADED, SUCCESS_BUT_MISSING_EXPECTED_OPERATION. */
const SUCCESSFUL = new Set([22, 104, 220]);
const NANOS_PER_DAY = 86_400_000_000_000n;
const EVM_ADDRESS_LENGTH = 20;

type Operation = 'create' | 'update' | 'delete';

const OPERATIONS: Record<number, { operation: Operation; type: EntityType | null }> = {
  [TYPE.CRYPTO_CREATE]: { operation: 'create', type: 'ACCOUNT' },
  [TYPE.CRYPTO_UPDATE]: { operation: 'update', type: 'ACCOUNT' },
  [TYPE.CRYPTO_DELETE]: { operation: 'delete', type: 'ACCOUNT' },
  [TYPE.CONTRACT_CREATE]: { operation: 'create', type: 'CONTRACT' },
  [TYPE.CONTRACT_UPDATE]: { operation: 'update', type: 'CONTRACT' },
  [TYPE.CONTRACT_DELETE]: { operation: 'delete', type: 'CONTRACT' },
  [TYPE.TOPIC_CREATE]: { operation: 'create', type: 'TOPIC' },
  [TYPE.TOPIC_UPDATE]: { operation: 'update', type: 'TOPIC' },
  [TYPE.TOPIC_DELETE]: { operation: 'delete', type: 'TOPIC' },
  [TYPE.FILE_CREATE]: { operation: 'create', type: 'FILE' },
  [TYPE.FILE_UPDATE]: { operation: 'update', type: 'FILE' },
  [TYPE.FILE_DELETE]: { operation: 'delete', type: 'FILE' },
  // the system operations name a file or a contract: the type follows the body
  [TYPE.SYSTEM_DELETE]: { operation: 'delete', type: null },
  [TYPE.SYSTEM_UNDELETE]: { operation: 'update', type: null },
  [TYPE.TOKEN_CREATE]: { operation: 'create', type: 'TOKEN' },
  [TYPE.TOKEN_UPDATE]: { operation: 'update', type: 'TOKEN' },
  [TYPE.TOKEN_DELETE]: { operation: 'delete', type: 'TOKEN' },
  [TYPE.SCHEDULE_CREATE]: { operation: 'create', type: 'SCHEDULE' },
  [TYPE.SCHEDULE_DELETE]: { operation: 'delete', type: 'SCHEDULE' },
};

/** The file's HAPI version (null before v5 files carried one): what the importer reads depends on it. */
export interface TransactionContext {
  hapi: { major: number; minor: number } | null;
}

/** True when the file's HAPI version is at least 0.`minor` (a file without a version is older than any). */
function hapiAtLeast(ctx: TransactionContext, minor: number): boolean {
  return ctx.hapi !== null && (ctx.hapi.major > 0 || ctx.hapi.minor >= minor);
}

/** HAPI versions the importer's rules change at. */
const STAKING_IN_BODIES = 27;
const EIP_7702 = 77;
const EIP_7702_TYPE = 4;

export function epochDay(timestamp: bigint): bigint {
  // floor division: a timestamp before 1970 belongs to a negative day
  const day = timestamp / NANOS_PER_DAY;
  return timestamp < 0n && day * NANOS_PER_DAY !== timestamp ? day - 1n : day;
}

/** The memo as the importer stores it: NUL characters (which PostgreSQL text refuses) replaced. */
function sanitize(memo: string): string {
  return memo.includes('\u0000') ? memo.replaceAll('\u0000', '\ufffd') : memo;
}

function setKey(to: EntityAttributes, key: Buffer): void {
  to.key = key;
  to.public_key = publicKeyOf(key) ?? '';
}

/** The implicit admin key of a contract created without one: Key{contractID{shardNum, realmNum, contractNum}}. */
function contractKey(id: bigint): Buffer {
  const { shard, realm, num } = decodeEntityId(id);
  const inner = protobuf.Writer.create();
  if (shard !== 0n) inner.uint32(8).int64(shard.toString());
  if (realm !== 0n) inner.uint32(16).int64(realm.toString());
  if (num !== 0n) inner.uint32(24).int64(num.toString());
  return Buffer.from(protobuf.Writer.create().uint32(10).bytes(inner.finish()).finish());
}

function stakingOnCreate(to: EntityAttributes, body: EntityBody, timestamp: bigint): void {
  to.decline_reward = body.declineReward ?? false;
  if (body.stakedNodeId !== undefined) to.staked_node_id = body.stakedNodeId;
  else if (body.stakedAccountId !== undefined) to.staked_account_id = body.stakedAccountId;
  else return;
  to.stake_period_start = epochDay(timestamp);
}

function stakingOnUpdate(to: EntityAttributes, body: EntityBody, timestamp: bigint): void {
  if (body.declineReward !== undefined) to.decline_reward = body.declineReward;
  if (body.stakedNodeId !== undefined) {
    to.staked_node_id = body.stakedNodeId;
    to.staked_account_id = 0n;
  } else if (body.stakedAccountId !== undefined) {
    to.staked_account_id = body.stakedAccountId;
    to.staked_node_id = -1n;
  }
  // a new staking target or reward choice starts a new stake period
  if (body.stakedNodeId !== undefined || body.stakedAccountId !== undefined || body.declineReward !== undefined)
    to.stake_period_start = epochDay(timestamp);
}

/** The attributes each type's handler sets beyond the operation's own (created, deleted). */
function typeAttributes(d: DecodedTransaction, id: bigint, body: EntityBody, to: EntityAttributes, ctx: TransactionContext): void {
  const ts = d.consensusTimestamp;
  const common = () => {
    if (body.autoRenewAccountId !== undefined) to.auto_renew_account_id = body.autoRenewAccountId;
    if (body.autoRenewPeriod !== undefined) to.auto_renew_period = body.autoRenewPeriod;
    if (body.expirationTimestamp !== undefined) to.expiration_timestamp = body.expirationTimestamp;
    if (body.key !== undefined) setKey(to, body.key);
    if (body.memo !== undefined) to.memo = sanitize(body.memo);
  };
  switch (d.body.type) {
    case TYPE.CRYPTO_CREATE: {
      const record = d.record ? readRecordEntityDetails(d.record) : null;
      const alias = record?.alias && record.alias.length > 0 ? record.alias : (body.alias ?? null);
      const hasAlias = alias !== null && alias.length > 0;
      const hasKey = body.key !== undefined && body.key.length > 0;
      if (hasAlias) {
        to.alias = alias;
        if (!hasKey && alias.length > EVM_ADDRESS_LENGTH) setKey(to, alias);
      }
      if (hasKey) setKey(to, body.key!);
      if (record?.evmAddress && record.evmAddress.length > 0) to.evm_address = record.evmAddress;
      else if (hasAlias) {
        const evm = aliasToEvmAddress(alias);
        if (evm) to.evm_address = evm;
      }
      if (body.autoRenewPeriod !== undefined) to.auto_renew_period = body.autoRenewPeriod;
      if (body.proxyAccountId !== undefined) to.proxy_account_id = body.proxyAccountId;
      to.balance = 0n;
      to.balance_timestamp = ts;
      to.max_automatic_token_associations = body.maxAutomaticTokenAssociations ?? 0;
      to.memo = sanitize(body.memo ?? '');
      to.receiver_sig_required = body.receiverSigRequired ?? false;
      if (hapiAtLeast(ctx, STAKING_IN_BODIES)) stakingOnCreate(to, body, ts);
      return;
    }
    case TYPE.CRYPTO_UPDATE:
    case TYPE.CONTRACT_UPDATE: {
      common();
      if (body.maxAutomaticTokenAssociations !== undefined) to.max_automatic_token_associations = body.maxAutomaticTokenAssociations;
      if (body.proxyAccountId !== undefined) to.proxy_account_id = body.proxyAccountId;
      if (body.receiverSigRequired !== undefined) to.receiver_sig_required = body.receiverSigRequired;
      else if (body.receiverSigRequiredLegacy) to.receiver_sig_required = true;
      if (hapiAtLeast(ctx, STAKING_IN_BODIES)) stakingOnUpdate(to, body, ts);
      return;
    }
    case TYPE.CONTRACT_CREATE: {
      const record = d.record ? readRecordEntityDetails(d.record) : null;
      if (body.autoRenewAccountId !== undefined) to.auto_renew_account_id = body.autoRenewAccountId;
      if (body.autoRenewPeriod !== undefined) to.auto_renew_period = body.autoRenewPeriod;
      if (record?.contractEvmAddress) to.evm_address = record.contractEvmAddress;
      setKey(to, body.key ?? contractKey(id));
      if (body.proxyAccountId !== undefined) to.proxy_account_id = body.proxyAccountId;
      to.balance = 0n;
      to.balance_timestamp = ts;
      to.max_automatic_token_associations = body.maxAutomaticTokenAssociations ?? 0;
      to.memo = sanitize(body.memo ?? '');
      if (hapiAtLeast(ctx, STAKING_IN_BODIES)) stakingOnCreate(to, body, ts);
      return;
    }
    case TYPE.CRYPTO_DELETE:
    case TYPE.CONTRACT_DELETE:
      if (body.obtainerId !== undefined) to.obtainer_id = body.obtainerId;
      if (body.permanentRemoval !== undefined) to.permanent_removal = body.permanentRemoval;
      return;
    default:
      common();
  }
}

/** Contract updates and deletions name their contract in the receipt from HAPI 0.23 (the body may give an EVM address). */
const RECEIPT_FIRST = new Set<number>([TYPE.CONTRACT_UPDATE, TYPE.CONTRACT_DELETE]);

/** The entity the transaction creates (from its receipt) or names (from its body); null when none. */
function targetOf(d: DecodedTransaction, operation: Operation, body: EntityBody): bigint | null {
  if (operation === 'create') return d.outcome.receiptEntityId;
  if (RECEIPT_FIRST.has(d.body.type)) return d.outcome.receiptEntityId ?? body.target;
  return body.target;
}

function entityChange(d: DecodedTransaction, ctx: TransactionContext): EntityVersion | null {
  const kind = OPERATIONS[d.body.type];
  if (!kind || !SUCCESSFUL.has(d.outcome.result)) return null;
  const body = readEntityBody(d.body.type, d.body.data);
  if (!body) return null;
  const id = targetOf(d, kind.operation, body);
  if (id === null || id === 0n) return null;
  const attributes: EntityAttributes = {};
  if (kind.operation === 'create') {
    attributes.created_timestamp = d.consensusTimestamp;
    attributes.deleted = false;
  } else attributes.deleted = kind.operation === 'delete';
  typeAttributes(d, id, body, attributes, ctx);
  attributes.type = kind.type ?? (body.targetIsContract ? 'CONTRACT' : 'FILE');
  return { id, attributes, range: { lower: d.consensusTimestamp, upper: null } };
}

/**
 * An EthereumTransaction's signer nonce, failed transactions included, as a change without history.
 * Before HAPI 0.47 records carry no signer nonce and the importer takes the transaction's own nonce
 * plus one from the RLP-decoded data: that case is not applied.
 */
function ethereumNonceChange(d: DecodedTransaction, ctx: TransactionContext): EntityVersion | null {
  if (d.body.type !== ETHEREUM_TRANSACTION || d.record === null) return null;
  const eth = readEthereumNonce(d.record, d.body.data);
  if (eth.typeByte === EIP_7702_TYPE && !hapiAtLeast(ctx, EIP_7702)) return null;
  if (eth.senderId === null || eth.senderId === 0n || eth.signerNonce === null) return null;
  return { id: eth.senderId, attributes: { ethereum_nonce: eth.signerNonce }, range: null };
}

/**
 * Adds the transaction's entity changes to `changes`. For a native block (no record) a creation has
 * no created id to apply (its receipt is not in the block's result) and is left out.
 */
export function addTransactionEntities(changes: EntityChanges, d: DecodedTransaction, ctx: TransactionContext): void {
  const ts = d.consensusTimestamp;
  const isCreate = OPERATIONS[d.body.type]?.operation === 'create';
  if (d.record !== null || !isCreate) {
    const change = entityChange(d, ctx) ?? ethereumNonceChange(d, ctx);
    if (change) changes.add(change);
  }
  for (const t of d.outcome.transfers) {
    changes.add({ id: t.accountId, attributes: { balance: t.amount, balance_timestamp: ts }, range: null });
  }
  // the period starts the day before the payout, so that the account earns for the day it was paid on
  const stakePeriodStart = epochDay(ts) - 1n;
  for (const reward of d.outcome.stakingRewards) {
    const current = changes.current(reward.accountId)?.attributes.stake_period_start;
    if (current === undefined || current < stakePeriodStart) {
      changes.add({ id: reward.accountId, attributes: { stake_period_start: stakePeriodStart }, range: { lower: ts, upper: null } });
    }
  }
}
