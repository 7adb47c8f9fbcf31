/**
 * The errata of network `mainnet` applied to an accepted record file before it is written: its
 * spurious transfers marked (spuriousTransfers.ts) and the missing transactions of its time window
 * added (missingTransactions.ts), their rows and decoded transactions merged in consensus order so
 * that the state appliers see them as the file's own. The spurious transfers need no file and are
 * marked whether or not the operator gave the errata folder; the missing transactions come from it.
 * Other networks are left as they are.
 */
import type { AcceptedFile } from '../writers/recordFileWriter.js';
import type { TransactionRows } from '../writers/transactionRows.js';
import type { MainnetErrata } from './mainnetErrataFiles.js';
import { missingTransactionRows } from './missingTransactions.js';
import { markSpuriousTransfers } from './spuriousTransfers.js';

function byTimestamp(a: { consensus_timestamp?: unknown }, b: { consensus_timestamp?: unknown }): number {
  const x = a.consensus_timestamp as bigint;
  const y = b.consensus_timestamp as bigint;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `extra`'s rows added to `rows`, every row of a table given the `errata` column when one has it. */
function merge(rows: TransactionRows, extra: TransactionRows): void {
  for (const table of ['transaction', 'cryptoTransfer', 'tokenTransfer', 'stakingRewardTransfer', 'fileData'] as const) {
    if (extra[table].length === 0) continue;
    const merged = [...rows[table], ...extra[table]];
    if (merged.some((r) => r.errata !== undefined)) for (const r of merged) r.errata ??= null;
    rows[table] = merged.sort(byTimestamp);
  }
  rows.decoded = [...rows.decoded, ...extra.decoded].sort((a, b) =>
    a.consensusTimestamp < b.consensusTimestamp ? -1 : a.consensusTimestamp > b.consensusTimestamp ? 1 : 0,
  );
}

/**
 * Applies mainnet's errata to `accepted` in place; `previousEnd` is the consensus end of the file
 * stored before it (null for the first); `errata` the folder's files, null without it. Returns the
 * missing transactions added.
 */
export function applyMainnetErrata(
  accepted: AcceptedFile,
  previousEnd: bigint | null,
  shardRealm: { shard: bigint; realm: bigint },
  errata: MainnetErrata | null,
): number {
  const { rows } = accepted;
  markSpuriousTransfers(rows);
  if (errata === null) return 0;
  const present = new Set(rows.decoded.map((d) => d.consensusTimestamp));
  const missing = missingTransactionRows(previousEnd, accepted.file.consensusEnd, present, shardRealm, errata.missingTransactions);
  merge(rows, missing);
  return missing.transaction.length;
}
