/**
 * What the entity applier needs of the bodies that create, change or delete an entity, and of the
 * record around them, read from the raw bytes (keys are kept as the bytes they came in, never
 * re-encoded). Each field is present only when the body sets it, with the presence rules of its
 * message: proto3 scalars (CryptoCreate's memo, receiverSigRequired…) are always "set", to their
 * default when absent; message fields and wrappers (CryptoUpdate's memo, Duration, Timestamp) only
 * when present, which is what the importer's `hasX()` tests.
 *
 * Field numbers (HAPI): CryptoCreate key 1, proxyAccountID 3, receiverSigRequired 8, autoRenewPeriod 9,
 * memo 13, max_automatic_token_associations 14, staked_account_id 15, staked_node_id 16,
 * decline_reward 17, alias 18. CryptoUpdate accountIDToUpdate 2, key 3, proxyAccountID 4,
 * autoRenewPeriod 8, expirationTime 9, receiverSigRequired 10, receiverSigRequiredWrapper 13, memo 14,
 * max_automatic_token_associations 15, staked_account_id 16, staked_node_id 17, decline_reward 18.
 * CryptoDelete transferAccountID 1, deleteAccountID 2. ContractCreate adminKey 3, proxyAccountID 6,
 * autoRenewPeriod 8, memo 13, max_automatic_token_associations 14, auto_renew_account_id 15,
 * staked_account_id 17, staked_node_id 18, decline_reward 19. ContractUpdate contractID 1,
 * expirationTime 2, adminKey 3, proxyAccountID 6, autoRenewPeriod 7, memo 9, memoWrapper 10,
 * max_automatic_token_associations 11, auto_renew_account_id 12, staked_account_id 13,
 * staked_node_id 14, decline_reward 15. ContractDelete contractID 1, transferAccountID 2,
 * transferContractID 3, permanent_removal 4. ConsensusCreateTopic memo 1, autoRenewPeriod 6,
 * autoRenewAccount 7. ConsensusUpdateTopic topicID 1, memo 2, expirationTime 4, autoRenewPeriod 8,
 * autoRenewAccount 9. ConsensusDeleteTopic topicID 1. FileCreate expirationTime 2, keys 3, memo 8.
 * FileUpdate fileID 1, expirationTime 2, keys 3, memo 5. FileDelete fileID 2. SystemDelete and
 * SystemUndelete fileID 1, contractID 2. TokenCreate adminKey 6, expiry 13, autoRenewAccount 14,
 * autoRenewPeriod 15, memo 16. TokenUpdate token 1, adminKey 5, autoRenewAccount 10,
 * autoRenewPeriod 11, expiry 12, memo 13. TokenDelete token 1. ScheduleCreate memo 2, adminKey 3.
 * ScheduleDelete scheduleID 1.
 */
import type protobuf from 'protobufjs/minimal.js';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { readEntityId } from './transactionDetails.js';

export const TYPE = {
  CONTRACT_CREATE: 8,
  CONTRACT_UPDATE: 9,
  CRYPTO_CREATE: 11,
  CRYPTO_DELETE: 12,
  CRYPTO_UPDATE: 15,
  FILE_CREATE: 17,
  FILE_DELETE: 18,
  FILE_UPDATE: 19,
  SYSTEM_DELETE: 20,
  SYSTEM_UNDELETE: 21,
  CONTRACT_DELETE: 22,
  TOPIC_CREATE: 24,
  TOPIC_UPDATE: 25,
  TOPIC_DELETE: 26,
  TOKEN_CREATE: 29,
  TOKEN_DELETE: 35,
  TOKEN_UPDATE: 36,
  SCHEDULE_CREATE: 42,
  SCHEDULE_DELETE: 43,
} as const;

/** The entity attributes a body sets; absent = not set. */
export interface EntityBody {
  /** the entity the body names (updates and deletes); creations take theirs from the receipt */
  target: bigint | null;
  /** SystemDelete/SystemUndelete: the target is a contract (else a file) */
  targetIsContract: boolean;
  key?: Buffer;
  alias?: Buffer;
  memo?: string;
  autoRenewPeriod?: bigint;
  autoRenewAccountId?: bigint;
  expirationTimestamp?: bigint;
  proxyAccountId?: bigint;
  maxAutomaticTokenAssociations?: number;
  receiverSigRequired?: boolean;
  /** CryptoUpdate's deprecated plain bool (applied only when true, for old transactions) */
  receiverSigRequiredLegacy?: boolean;
  stakedAccountId?: bigint;
  stakedNodeId?: bigint;
  declineReward?: boolean;
  obtainerId?: bigint;
  permanentRemoval?: boolean;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Duration {seconds 1} → seconds. */
function durationSeconds(bytes: Uint8Array): bigint {
  let seconds = 0n;
  readFields(bytes, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_VARINT) return false;
    seconds = int64(r);
    return true;
  });
  return seconds;
}

/** Timestamp {seconds 1, nanos 2} → nanoseconds, clamped to int64 as the importer's timestampInNanosMax does. */
export function timestampNanosMax(bytes: Uint8Array): bigint {
  let seconds = 0n;
  let nanos = 0n;
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT || field > 2) return false;
    if (field === 1) seconds = int64(r);
    else nanos = BigInt(r.int32());
    return true;
  });
  const ns = seconds * 1_000_000_000n + nanos;
  if (ns > INT64_MAX || ns < INT64_MIN) return seconds >= 0n ? INT64_MAX : INT64_MIN;
  return ns;
}

/** A wrapper message (StringValue, BoolValue, Int32Value…) holding field 1; returns its reader's value or the default. */
function wrapped<T>(bytes: Uint8Array, wire: number, read: (r: protobuf.Reader) => T, fallback: T): T {
  let value = fallback;
  readFields(bytes, (field, w, r) => {
    if (field !== 1 || w !== wire) return false;
    value = read(r);
    return true;
  });
  return value;
}

const utf8 = (bytes: Uint8Array) => view(bytes).toString('utf8');
const stringValue = (bytes: Uint8Array) => wrapped(bytes, WIRE_LENGTH, (r) => utf8(r.bytes()), '');
const boolValue = (bytes: Uint8Array) => wrapped(bytes, WIRE_VARINT, (r) => r.bool(), false);
const int32Value = (bytes: Uint8Array) => wrapped(bytes, WIRE_VARINT, (r) => r.int32(), 0);

/** Which attribute each of a type's fields sets, and how it is read. */
type FieldReader = (out: EntityBody, bytes: Uint8Array | null, r: protobuf.Reader) => void;
interface BodyLayout {
  /** proto3 scalars with their default when absent */
  defaults?: Partial<EntityBody>;
  length: Record<number, FieldReader>;
  varint?: Record<number, FieldReader>;
}

const id = (bytes: Uint8Array | null) => readEntityId(bytes!) ?? null;
const setTarget: FieldReader = (out, b) => {
  out.target = id(b);
};
const setKey: FieldReader = (out, b) => {
  out.key = view(b!);
};
const setMemo: FieldReader = (out, b) => {
  out.memo = utf8(b!);
};
const setMemoValue: FieldReader = (out, b) => {
  out.memo = stringValue(b!);
};
const setRenewPeriod: FieldReader = (out, b) => {
  out.autoRenewPeriod = durationSeconds(b!);
};
const setRenewAccount: FieldReader = (out, b) => {
  const account = id(b);
  if (account !== null) out.autoRenewAccountId = account;
};
const setExpiry: FieldReader = (out, b) => {
  out.expirationTimestamp = timestampNanosMax(b!);
};
const setProxy: FieldReader = (out, b) => {
  const proxy = id(b);
  if (proxy !== null && proxy !== 0n) out.proxyAccountId = proxy;
};
const setStakedAccount: FieldReader = (out, b) => {
  out.stakedAccountId = id(b) ?? 0n;
  delete out.stakedNodeId;
};
const setStakedNode: FieldReader = (out, _b, r) => {
  out.stakedNodeId = int64(r);
  delete out.stakedAccountId;
};
/** An update's auto-renew account: naming 0.0.0 (an empty AccountID) clears it. */
const setRenewAccountOrClear: FieldReader = (out, b) => {
  out.autoRenewAccountId = id(b) ?? 0n;
};
const setObtainer: FieldReader = (out, b) => {
  const obtainer = id(b);
  if (obtainer !== null) out.obtainerId = obtainer;
};

const LAYOUTS: Record<number, BodyLayout> = {
  [TYPE.CRYPTO_CREATE]: {
    defaults: { memo: '', maxAutomaticTokenAssociations: 0, receiverSigRequired: false, declineReward: false },
    length: {
      1: setKey,
      3: setProxy,
      9: setRenewPeriod,
      13: setMemo,
      15: setStakedAccount,
      18: (out, b) => {
        out.alias = view(b!);
      },
    },
    varint: {
      8: (out, _b, r) => {
        out.receiverSigRequired = r.bool();
      },
      14: (out, _b, r) => {
        out.maxAutomaticTokenAssociations = r.int32();
      },
      16: setStakedNode,
      17: (out, _b, r) => {
        out.declineReward = r.bool();
      },
    },
  },
  [TYPE.CRYPTO_UPDATE]: {
    length: {
      2: setTarget,
      3: setKey,
      4: setProxy,
      8: setRenewPeriod,
      9: setExpiry,
      13: (out, b) => {
        out.receiverSigRequired = boolValue(b!);
      },
      14: setMemoValue,
      15: (out, b) => {
        out.maxAutomaticTokenAssociations = int32Value(b!);
      },
      16: setStakedAccount,
      18: (out, b) => {
        out.declineReward = boolValue(b!);
      },
    },
    varint: {
      10: (out, _b, r) => {
        out.receiverSigRequiredLegacy = r.bool();
      },
      17: setStakedNode,
    },
  },
  [TYPE.CRYPTO_DELETE]: { length: { 1: setObtainer, 2: setTarget } },
  [TYPE.CONTRACT_CREATE]: {
    defaults: { memo: '', maxAutomaticTokenAssociations: 0, declineReward: false },
    length: { 3: setKey, 6: setProxy, 8: setRenewPeriod, 13: setMemo, 15: setRenewAccount, 17: setStakedAccount },
    varint: {
      14: (out, _b, r) => {
        out.maxAutomaticTokenAssociations = r.int32();
      },
      18: setStakedNode,
      19: (out, _b, r) => {
        out.declineReward = r.bool();
      },
    },
  },
  [TYPE.CONTRACT_UPDATE]: {
    length: {
      1: setTarget,
      2: setExpiry,
      3: setKey,
      6: setProxy,
      7: setRenewPeriod,
      // the deprecated plain memo counts only when not empty
      9: (out, b) => {
        const memo = utf8(b!);
        if (memo !== '') out.memo = memo;
      },
      10: setMemoValue,
      11: (out, b) => {
        out.maxAutomaticTokenAssociations = int32Value(b!);
      },
      12: setRenewAccountOrClear,
      13: setStakedAccount,
      15: (out, b) => {
        out.declineReward = boolValue(b!);
      },
    },
    varint: { 14: setStakedNode },
  },
  [TYPE.CONTRACT_DELETE]: {
    length: { 1: setTarget, 2: setObtainer, 3: setObtainer },
    varint: {
      4: (out, _b, r) => {
        out.permanentRemoval = r.bool();
      },
    },
    defaults: { permanentRemoval: false },
  },
  [TYPE.TOPIC_CREATE]: { defaults: { memo: '' }, length: { 1: setMemo, 6: setRenewPeriod, 7: setRenewAccount } },
  [TYPE.TOPIC_UPDATE]: {
    length: {
      1: setTarget,
      2: setMemoValue,
      4: setExpiry,
      8: setRenewPeriod,
      9: setRenewAccountOrClear,
    },
  },
  [TYPE.TOPIC_DELETE]: { length: { 1: setTarget } },
  [TYPE.FILE_CREATE]: { defaults: { memo: '' }, length: { 2: setExpiry, 3: setKey, 8: setMemo } },
  [TYPE.FILE_UPDATE]: { length: { 1: setTarget, 2: setExpiry, 3: setKey, 5: setMemoValue } },
  [TYPE.FILE_DELETE]: { length: { 2: setTarget } },
  [TYPE.SYSTEM_DELETE]: {
    length: {
      1: setTarget,
      2: (out, b) => {
        out.target = id(b);
        out.targetIsContract = true;
      },
    },
  },
  [TYPE.SYSTEM_UNDELETE]: {
    length: {
      1: setTarget,
      2: (out, b) => {
        out.target = id(b);
        out.targetIsContract = true;
      },
    },
  },
  [TYPE.TOKEN_CREATE]: {
    defaults: { memo: '' },
    length: { 6: setKey, 13: setExpiry, 14: setRenewAccount, 15: setRenewPeriod, 16: setMemo },
  },
  [TYPE.TOKEN_UPDATE]: {
    length: { 1: setTarget, 5: setKey, 10: setRenewAccountOrClear, 11: setRenewPeriod, 12: setExpiry, 13: setMemoValue },
  },
  [TYPE.TOKEN_DELETE]: { length: { 1: setTarget } },
  [TYPE.SCHEDULE_CREATE]: { defaults: { memo: '' }, length: { 2: setMemo, 3: setKey } },
  [TYPE.SCHEDULE_DELETE]: { length: { 1: setTarget } },
};

/** The entity attributes of a body of `type` (its `data` bytes); null for the types that change no entity attributes. */
export function readEntityBody(type: number, data: Uint8Array | null): EntityBody | null {
  const layout = LAYOUTS[type];
  if (!layout) return null;
  const out: EntityBody = { target: null, targetIsContract: false, ...layout.defaults };
  if (data === null) return out;
  readFields(data, (field, wire, r) => {
    if (wire === WIRE_LENGTH) {
      const read = layout.length[field];
      if (!read) return false;
      read(out, r.bytes(), r);
      return true;
    }
    if (wire === WIRE_VARINT) {
      const read = layout.varint?.[field];
      if (!read) return false;
      read(out, null, r);
      return true;
    }
    return false;
  });
  return out;
}

/** What a TransactionRecord says of the entity it created: alias 16, evm_address 21, contractCreateResult 8 → evm_address 9 (BytesValue). */
export interface RecordEntityDetails {
  alias: Buffer | null;
  evmAddress: Buffer | null;
  contractEvmAddress: Buffer | null;
}

export function readRecordEntityDetails(record: Uint8Array): RecordEntityDetails {
  const out: RecordEntityDetails = { alias: null, evmAddress: null, contractEvmAddress: null };
  readFields(record, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 16) out.alias = view(r.bytes());
    else if (field === 21) out.evmAddress = view(r.bytes());
    else if (field === 8) {
      readFields(r.bytes(), (f, w, fr) => {
        if (f !== 9 || w !== WIRE_LENGTH) return false;
        out.contractEvmAddress = wrapped(fr.bytes(), WIRE_LENGTH, (vr) => view(vr.bytes()), Buffer.alloc(0));
        return true;
      });
    } else return false;
    return true;
  });
  return out;
}

export const ETHEREUM_TRANSACTION = 50;

/**
 * What an EthereumTransaction says of its signer's nonce: the record's function result (create 8,
 * else call 7) names the sender (sender_id 13) and, from HAPI 0.47, its nonce after the transaction
 * (signer_nonce 15, an Int64Value); the body's ethereum_data (1) starts with the transaction's type
 * byte for typed transactions (4: EIP-7702).
 */
export interface EthereumNonce {
  senderId: bigint | null;
  signerNonce: bigint | null;
  hasFunctionResult: boolean;
  typeByte: number | null;
}

function readFunctionResult(bytes: Uint8Array, out: EthereumNonce): void {
  out.hasFunctionResult = true;
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 13) out.senderId = readEntityId(r.bytes());
    else if (field === 15) out.signerNonce = wrapped(r.bytes(), WIRE_VARINT, int64, 0n);
    else return false;
    return true;
  });
}

export function readEthereumNonce(record: Uint8Array, body: Uint8Array | null): EthereumNonce {
  const out: EthereumNonce = { senderId: null, signerNonce: null, hasFunctionResult: false, typeByte: null };
  let call: Uint8Array | null = null;
  let create: Uint8Array | null = null;
  readFields(record, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || (field !== 7 && field !== 8)) return false;
    if (field === 7) call = r.bytes();
    else create = r.bytes();
    return true;
  });
  const result = (create ?? call) as Uint8Array | null;
  if (result) readFunctionResult(result, out);
  if (body) {
    readFields(body, (field, wire, r) => {
      if (field !== 1 || wire !== WIRE_LENGTH) return false;
      const data = r.bytes();
      if (data.length > 0) out.typeByte = data[0]!;
      return true;
    });
  }
  return out;
}
