/**
 * Turns the raw (Transaction, TransactionRecord) pairs of a record file into items and the summary
 * columns of its row: count, consensus range, and gas_used / logs_bloom over top-level contract results.
 */
import { decodeTransactionRecord } from '../proto/transactionRecord.js';
import type { RecordItem } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { fileNameNanos } from '../streamFileName.js';

const BLOOM_LENGTH = 256;

export function recordItem(file: string, transactionBytes: Buffer, recordBytes: Buffer, position: number): RecordItem {
  let decoded: ReturnType<typeof decodeTransactionRecord>;
  try {
    decoded = decodeTransactionRecord(recordBytes);
  } catch (e) {
    throw new StreamFileError(file, `item ${position}: malformed TransactionRecord (${(e as Error).message})`);
  }
  if (!decoded.hasConsensusTimestamp) throw new StreamFileError(file, `item ${position}: TransactionRecord without a consensus timestamp`);
  const { hasConsensusTimestamp: _, ...rest } = decoded;
  return { ...rest, transactionBytes, recordBytes };
}

/**
 * Top-level as the importer's RecordFileParser counts it: nonce 0, scheduled, or without a parent.
 * (A FileUpdate paid by 0.0.50 is top-level too, but never carries a contract result, so it adds nothing here.)
 */
function isTopLevel(item: RecordItem): boolean {
  return item.nonce === 0 || item.scheduled || item.parentConsensusTimestamp === null;
}

export function gasAndBloom(items: RecordItem[]): { gasUsed: bigint; logsBloom: Buffer } {
  let gasUsed = 0n;
  let logsBloom = Buffer.alloc(0);
  for (const item of items) {
    if (!item.contractResult || !isTopLevel(item)) continue;
    gasUsed += item.contractResult.gasUsed;
    if (logsBloom.length === 0) logsBloom = Buffer.alloc(BLOOM_LENGTH);
    const bloom = item.contractResult.bloom;
    for (let i = 0; i < Math.min(bloom.length, BLOOM_LENGTH); i++) logsBloom[i]! |= bloom[i]!;
  }
  return { gasUsed, logsBloom };
}

/** count, consensus range (the file name's time for an empty file), gas_used and logs_bloom. */
export function summarizeItems(name: string, items: RecordItem[]) {
  const first = items[0];
  const last = items[items.length - 1];
  const empty = first === undefined || last === undefined;
  const nameTime = empty ? fileNameNanos(name) : 0n;
  return {
    count: items.length,
    consensusStart: empty ? nameTime : first.consensusTimestamp,
    consensusEnd: empty ? nameTime : last.consensusTimestamp,
    ...gasAndBloom(items),
  };
}
