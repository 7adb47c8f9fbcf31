/**
 * Contents of the system files the contract-result routes read for the gas price: 0.0.111 (fee
 * schedule, `CurrentAndNextFeeSchedule`) and 0.0.112 (exchange rate, `ExchangeRateSet`).
 */
import protobuf from 'protobufjs/minimal.js';

const { Writer } = protobuf;

const VARINT = 0;
const LENGTH = 2;

function tag(w: protobuf.Writer, field: number, wire: number): protobuf.Writer {
  return w.uint32((field << 3) | wire);
}

function timestampSeconds(seconds: number): Uint8Array {
  return tag(Writer.create(), 1, VARINT).int64(seconds).finish();
}

export interface Rate {
  hbarEquiv: number;
  centEquiv: number;
  expirationSeconds: number;
}

function exchangeRate(rate: Rate): Uint8Array {
  const w = Writer.create();
  tag(w, 1, VARINT).int32(rate.hbarEquiv);
  tag(w, 2, VARINT).int32(rate.centEquiv);
  tag(w, 3, LENGTH).bytes(timestampSeconds(rate.expirationSeconds));
  return w.finish();
}

export function exchangeRateSet(current: Rate, next: Rate): Buffer {
  const w = Writer.create();
  tag(w, 1, LENGTH).bytes(exchangeRate(current));
  tag(w, 2, LENGTH).bytes(exchangeRate(next));
  return Buffer.from(w.finish());
}

/** HederaFunctionality values with their servicedata gas price component (tinycents × 1000). */
const GAS_PRICES: readonly [functionality: number, gas: number][] = [
  [12, 0], // CryptoTransfer: no gas component
  [6, 852_000], // ContractCall
  [7, 852_000], // ContractCreate
  [84, 852_000], // EthereumTransaction
];

function feeSchedule(expirySeconds: number, gasFactor: number): Uint8Array {
  const w = Writer.create();
  for (const [functionality, gas] of GAS_PRICES) {
    const components = tag(Writer.create(), 8, VARINT)
      .int64(Math.round(gas * gasFactor))
      .finish();
    const feeData = tag(Writer.create(), 3, LENGTH).bytes(components).finish();
    const entry = Writer.create();
    tag(entry, 1, VARINT).int32(functionality);
    tag(entry, 3, LENGTH).bytes(feeData);
    tag(w, 1, LENGTH).bytes(entry.finish());
  }
  tag(w, 2, LENGTH).bytes(timestampSeconds(expirySeconds));
  return w.finish();
}

export function feeSchedules(currentExpirySeconds: number, nextExpirySeconds: number): Buffer {
  const w = Writer.create();
  tag(w, 1, LENGTH).bytes(feeSchedule(currentExpirySeconds, 1));
  tag(w, 2, LENGTH).bytes(feeSchedule(nextExpirySeconds, 1.1));
  return Buffer.from(w.finish());
}
