/**
 * Mainnet's missing transactions: 113 transactions (failed fee-funding CryptoTransfers of 2019 and the
 * FAIL_INVALID transactions of 2023-02) that the network applied but its record streams lack. The
 * importer inserts them from its errata files (here read from the operator's folder by
 * mainnetErrataFiles.ts) with `errata = 'INSERT'` on their `transaction` and `crypto_transfer` rows; here each goes in with the record file whose time window holds it, after
 * the previous file's end and up to its own end (all up to it for the first file), unless the file
 * has a transaction at that time already.
 */
import { ByteCursor } from '../byteCursor.js';
import { decodeTransactionRecord } from '../proto/transactionRecord.js';
import type { RecordItem } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import { recordItemRows, type TransactionRows } from '../writers/transactionRows.js';

/** bounds of the two messages of an errata file */
const MAX_MESSAGE = 6 * 1024 * 1024;

/** One errata file: int32 length + TransactionRecord, int32 length + Transaction. */
export function readMissingTransaction(name: string, bytes: Buffer): RecordItem {
  const cursor = new ByteCursor(bytes, name);
  const recordBytes = cursor.lengthPrefixed('record', MAX_MESSAGE);
  const transactionBytes = cursor.lengthPrefixed('transaction', MAX_MESSAGE);
  cursor.expectEnd();
  const { hasConsensusTimestamp, ...decoded } = decodeTransactionRecord(recordBytes);
  if (!hasConsensusTimestamp) throw new StreamFileError(name, 'a record without a consensus timestamp');
  return { ...decoded, recordBytes, transactionBytes };
}

/** The rows of the missing transactions in (`after`, `upTo`] not in `present`, marked `errata = 'INSERT'`. */
export function missingTransactionRows(
  after: bigint | null,
  upTo: bigint,
  present: ReadonlySet<bigint>,
  shardRealm: { shard: bigint; realm: bigint },
  items: readonly RecordItem[],
): TransactionRows {
  const due = items.filter(
    (i) => (after === null || i.consensusTimestamp > after) && i.consensusTimestamp <= upTo && !present.has(i.consensusTimestamp),
  );
  const rows = recordItemRows('errata/mainnet/missingtransactions', due, shardRealm);
  for (const row of rows.transaction) row.errata = 'INSERT';
  for (const row of rows.cryptoTransfer) row.errata = 'INSERT';
  return rows;
}
