/**
 * The fields of a HAPI `TransactionRecord` the ingester needs, read without re-encoding anything:
 * consensusTimestamp (3), transactionID (4: nonce 4, scheduled 3), contractCallResult (7),
 * contractCreateResult (8: gasUsed 5, bloom 4) and parent_consensus_timestamp (15).
 */
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import type { RecordItem } from '../recordFile.js';

/** Timestamp {seconds = 1, nanos = 2} as int64 nanoseconds. */
export function timestampNanos(bytes: Uint8Array): bigint {
  let seconds = 0n;
  let nanos = 0n;
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT) return false;
    if (field === 1) seconds = int64(r);
    else if (field === 2) nanos = BigInt(r.int32());
    else return false;
    return true;
  });
  return seconds * 1_000_000_000n + nanos;
}

function readTransactionId(bytes: Uint8Array): { nonce: number; scheduled: boolean } {
  const id = { nonce: 0, scheduled: false };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT) return false;
    if (field === 3) id.scheduled = r.bool();
    else if (field === 4) id.nonce = r.int32();
    else return false;
    return true;
  });
  return id;
}

function readContractResult(bytes: Uint8Array): { gasUsed: bigint; bloom: Buffer } {
  const result = { gasUsed: 0n, bloom: Buffer.alloc(0) };
  readFields(bytes, (field, wire, r) => {
    if (field === 4 && wire === WIRE_LENGTH) result.bloom = Buffer.from(r.bytes());
    else if (field === 5 && wire === WIRE_VARINT) result.gasUsed = BigInt.asUintN(64, int64(r));
    else return false;
    return true;
  });
  return result;
}

export type DecodedRecord = Omit<RecordItem, 'transactionBytes' | 'recordBytes'> & { hasConsensusTimestamp: boolean };

export function decodeTransactionRecord(bytes: Uint8Array): DecodedRecord {
  const out: DecodedRecord = {
    consensusTimestamp: 0n,
    hasConsensusTimestamp: false,
    parentConsensusTimestamp: null,
    nonce: 0,
    scheduled: false,
    contractResult: null,
  };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 3) {
      out.consensusTimestamp = timestampNanos(r.bytes());
      out.hasConsensusTimestamp = true;
    } else if (field === 4) Object.assign(out, readTransactionId(r.bytes()));
    else if (field === 7 || field === 8) out.contractResult = readContractResult(r.bytes());
    else if (field === 15) out.parentConsensusTimestamp = timestampNanos(r.bytes());
    else return false;
    return true;
  });
  return out;
}
