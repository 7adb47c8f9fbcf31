import { formatEntityId, parseEntityIdValue, type ShardRealm } from './entityId.js';
import { MAX_INT64, NANOS_PER_SECOND } from './timestamp.js';

/** `shard.realm.num-seconds-nanos` (nanos always 9 digits) from a payer and its valid-start time. */
export function formatTransactionId(payer: bigint, validStartNs: bigint): string {
  const seconds = validStartNs / NANOS_PER_SECOND;
  const nanos = (validStartNs % NANOS_PER_SECOND).toString().padStart(9, '0');
  return `${formatEntityId(payer) ?? '0.0.0'}-${seconds}-${nanos}`;
}

export interface TransactionId {
  payer: bigint;
  validStartNs: bigint;
}

const TRANSACTION_ID = /^(\d+\.\d+\.\d+)-(\d{1,19})-(\d{1,9})$/;

export type TransactionIdParse =
  | { ok: true; value: TransactionId }
  | { ok: false; reason: 'format' }
  | { ok: false; reason: 'entity'; entity: string };

export function parseTransactionId(text: string, system: ShardRealm): TransactionIdParse {
  const m = TRANSACTION_ID.exec(text);
  if (!m) return { ok: false, reason: 'format' };
  const payer = parseEntityIdValue(m[1]!, system, false);
  if (payer === null) return { ok: false, reason: 'entity', entity: m[1]! };
  const seconds = BigInt(m[2]!);
  if (seconds > MAX_INT64) return { ok: false, reason: 'format' };
  return { ok: true, value: { payer, validStartNs: BigInt(m[2]! + m[3]!.padStart(9, '0')) } };
}
