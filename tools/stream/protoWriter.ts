/**
 * A small protobuf writer for the synthetic stream: fields as byte chunks, messages as their
 * concatenation. Only the tools write protobuf this way; the service's readers never re-encode.
 */

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;

function varint(value: bigint): Buffer {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Buffer.from(out);
}

function tag(field: number, wire: number): Buffer {
  return varint(BigInt((field << 3) | wire));
}

/** int32, int64, uint64, bool and enum fields; a zero is written too (callers leave defaults out). */
export function int(field: number, value: number | bigint | boolean): Buffer {
  const v = typeof value === 'boolean' ? (value ? 1n : 0n) : BigInt(value);
  return Buffer.concat([tag(field, WIRE_VARINT), varint(v)]);
}

/** sint64 (zigzag), as AccountAmount.amount */
export function sint(field: number, value: bigint): Buffer {
  const zigzag = value >= 0n ? value << 1n : (-value << 1n) - 1n;
  return Buffer.concat([tag(field, WIRE_VARINT), varint(zigzag)]);
}

export function bytes(field: number, value: Uint8Array): Buffer {
  return Buffer.concat([tag(field, WIRE_LENGTH), varint(BigInt(value.length)), value]);
}

export function string(field: number, value: string): Buffer {
  return bytes(field, Buffer.from(value, 'utf8'));
}

/** an embedded message made of the given fields */
export function message(field: number, ...fields: Buffer[]): Buffer {
  return bytes(field, Buffer.concat(fields));
}
