/**
 * The few protobuf messages the service reads or writes (CustomFeeLimit, ContractFunctionResult's
 * sender, fee schedule and exchange rate files), over protobufjs' wire-format reader and writer.
 */
import protobuf from 'protobufjs/minimal.js';

const { Reader, Writer } = protobuf;
type ReaderT = protobuf.Reader;

export const WIRE_VARINT = 0;
export const WIRE_LENGTH = 2;

/** Calls `onField(fieldNumber, wireType, reader)` for each field; unknown fields are skipped by the callback returning false. */
export function readFields(bytes: Uint8Array, onField: (field: number, wire: number, r: ReaderT) => boolean): void {
  const r = Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (!onField(field, wire, r)) r.skipType(wire);
  }
}

export function int64(r: ReaderT): bigint {
  const v = r.int64() as unknown as { low: number; high: number } | number;
  if (typeof v === 'number') return BigInt(v);
  return BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
}

interface IdMessage {
  shard: bigint;
  realm: bigint;
  num: bigint | null;
  alias: Uint8Array | null;
}

/** AccountID / TokenID / ContractID: {shard=1, realm=2, num=3 | alias=4 (bytes)}. */
function readId(bytes: Uint8Array): IdMessage {
  const id: IdMessage = { shard: 0n, realm: 0n, num: null, alias: null };
  readFields(bytes, (field, wire, r) => {
    if (wire === WIRE_VARINT && field <= 3) {
      const v = int64(r);
      if (field === 1) id.shard = v;
      else if (field === 2) id.realm = v;
      else id.num = v;
      return true;
    }
    if (wire === WIRE_LENGTH && field === 4) {
      id.alias = r.bytes();
      return true;
    }
    return false;
  });
  return id;
}

function idString(id: IdMessage): string | null {
  return id.num === null ? null : `${id.shard}.${id.realm}.${id.num}`;
}

export interface CustomFeeLimitView {
  account_id: string | null;
  amount: bigint;
  denominating_token_id: string | null;
}

/** Flattens one serialized CustomFeeLimit {account_id=1, fees=2 repeated FixedFee{amount=1, denominating_token_id=2}}. */
export function decodeCustomFeeLimit(bytes: Uint8Array): CustomFeeLimitView[] {
  let accountId: string | null = null;
  const fees: { amount: bigint; token: string | null }[] = [];
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) {
      accountId = idString(readId(r.bytes()));
      return true;
    }
    if (field === 2) {
      const fee = { amount: 0n, token: null as string | null };
      readFields(r.bytes(), (f, w, fr) => {
        if (f === 1 && w === WIRE_VARINT) fee.amount = int64(fr);
        else if (f === 2 && w === WIRE_LENGTH) {
          const token = readId(fr.bytes());
          fee.token = `${token.shard}.${token.realm}.${token.num ?? 0n}`;
        } else return false;
        return true;
      });
      fees.push(fee);
      return true;
    }
    return false;
  });
  return fees.map((f) => ({ account_id: accountId, amount: f.amount, denominating_token_id: f.token }));
}

export interface CustomFeeLimitInput {
  account: { shard: bigint; realm: bigint; num: bigint };
  fees: { amount: bigint; token?: { shard: bigint; realm: bigint; num: bigint } }[];
}

function writeId(w: protobuf.Writer, field: number, id: { shard: bigint; realm: bigint; num: bigint }): void {
  const inner = Writer.create();
  if (id.shard !== 0n) inner.uint32((1 << 3) | WIRE_VARINT).int64(id.shard.toString());
  if (id.realm !== 0n) inner.uint32((2 << 3) | WIRE_VARINT).int64(id.realm.toString());
  if (id.num !== 0n) inner.uint32((3 << 3) | WIRE_VARINT).int64(id.num.toString());
  w.uint32((field << 3) | WIRE_LENGTH).bytes(inner.finish());
}

export function encodeCustomFeeLimit(limit: CustomFeeLimitInput): Uint8Array {
  const w = Writer.create();
  writeId(w, 1, limit.account);
  for (const fee of limit.fees) {
    const f = Writer.create();
    if (fee.amount !== 0n) f.uint32((1 << 3) | WIRE_VARINT).int64(fee.amount.toString());
    if (fee.token) writeId(f, 2, fee.token);
    w.uint32((2 << 3) | WIRE_LENGTH).bytes(f.finish());
  }
  return w.finish();
}

/** ContractFunctionResult.sender_id (field 13, AccountID): its alias bytes when set, else null. */
export function functionResultSenderAlias(bytes: Uint8Array): Uint8Array | null {
  let alias: Uint8Array | null = null;
  try {
    readFields(bytes, (field, wire, r) => {
      if (field === 13 && wire === WIRE_LENGTH) {
        const id = readId(r.bytes());
        if (id.alias && id.alias.length > 0) alias = id.alias;
        return true;
      }
      return false;
    });
  } catch {
    return null;
  }
  return alias;
}

export interface ExchangeRate {
  hbarEquiv: bigint;
  centEquiv: bigint;
  expirationSeconds: bigint;
}

function readExchangeRate(bytes: Uint8Array): ExchangeRate {
  const rate: ExchangeRate = { hbarEquiv: 0n, centEquiv: 0n, expirationSeconds: 0n };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_VARINT) rate.hbarEquiv = int64(r);
    else if (field === 2 && wire === WIRE_VARINT) rate.centEquiv = int64(r);
    else if (field === 3 && wire === WIRE_LENGTH) {
      readFields(r.bytes(), (f, w, tr) => {
        if (f === 1 && w === WIRE_VARINT) {
          rate.expirationSeconds = int64(tr);
          return true;
        }
        return false;
      });
    } else return false;
    return true;
  });
  return rate;
}

/** A message {current=1, next=2} of two `T`s, both required; throws on malformed input. */
function readCurrentAndNext<T>(bytes: Uint8Array, readItem: (bytes: Uint8Array) => T, what: string): { current: T; next: T } {
  const items: { current?: T; next?: T } = {};
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH || (field !== 1 && field !== 2)) return false;
    items[field === 1 ? 'current' : 'next'] = readItem(r.bytes());
    return true;
  });
  if (items.current === undefined || items.next === undefined) throw new Error(`incomplete ${what}`);
  return { current: items.current, next: items.next };
}

/** ExchangeRateSet {currentRate=1, nextRate=2}; throws on malformed input. */
export function decodeExchangeRateSet(bytes: Uint8Array): { current: ExchangeRate; next: ExchangeRate } {
  return readCurrentAndNext(bytes, readExchangeRate, 'exchange rate set');
}

export interface FeeSchedule {
  expirySeconds: bigint;
  /** gas price component of the first ContractCall (functionality 6) entry with fees, if any */
  contractCallGas: bigint | null;
}

const CONTRACT_CALL = 6;

function readFeeSchedule(bytes: Uint8Array): FeeSchedule {
  const schedule: FeeSchedule = { expirySeconds: 0n, contractCallGas: null };
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) {
      let functionality = 0;
      const gases: bigint[] = [];
      readFields(r.bytes(), (f, w, er) => {
        if (f === 1 && w === WIRE_VARINT) functionality = er.int32();
        else if (f === 3 && w === WIRE_LENGTH) {
          let gas = 0n;
          readFields(er.bytes(), (ff, ww, fr) => {
            if (ff === 3 && ww === WIRE_LENGTH) {
              readFields(fr.bytes(), (c, cw, cr) => {
                if (c === 8 && cw === WIRE_VARINT) {
                  gas = int64(cr);
                  return true;
                }
                return false;
              });
              return true;
            }
            return false;
          });
          gases.push(gas);
        } else return false;
        return true;
      });
      if (functionality === CONTRACT_CALL && gases.length > 0 && schedule.contractCallGas === null) {
        schedule.contractCallGas = gases[0]!;
      }
      return true;
    }
    if (field === 2 && wire === WIRE_LENGTH) {
      readFields(r.bytes(), (f, w, tr) => {
        if (f === 1 && w === WIRE_VARINT) {
          schedule.expirySeconds = int64(tr);
          return true;
        }
        return false;
      });
      return true;
    }
    return false;
  });
  return schedule;
}

/** CurrentAndNextFeeSchedule {current=1, next=2}; throws on malformed input. */
export function decodeFeeSchedules(bytes: Uint8Array): { current: FeeSchedule; next: FeeSchedule } {
  return readCurrentAndNext(bytes, readFeeSchedule, 'fee schedule');
}
