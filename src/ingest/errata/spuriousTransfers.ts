/**
 * Mainnet's spurious transfers: until a services fix of late 2019, a failed CryptoTransfer's record
 * still listed the transfers its body asked for, though they never happened. As the importer parses
 * them, a transfer of such a record (not successful, a CryptoTransfer, before 1577836799000000000)
 * whose account and amount are one of the body's transfers is stored with `errata = 'DELETE'` and
 * taken out of the decoded transaction's transfers, so that the state appliers leave it out of the
 * balances.
 */
import { readCryptoTransferBody } from '../proto/cryptoTransferBody.js';
import type { AccountAmount } from '../proto/transactionDetails.js';
import type { TransactionRows } from '../writers/transactionRows.js';

/** SUCCESS, FEE_SCHEDULE_FILE_PART_UPLOADED, SUCCESS_BUT_MISSING_EXPECTED_OPERATION: what the importer counts as successful */
export const SUCCESSFUL = new Set([22, 104, 220]);
export const SPURIOUS_TRANSFERS_BEFORE = 1577836799000000000n;

/** Marks the spurious transfers of `rows` (`errata` set on every crypto_transfer row when one is); returns how many. */
export function markSpuriousTransfers(rows: TransactionRows): number {
  const failed = new Map<bigint, AccountAmount[]>();
  for (const d of rows.decoded) {
    if (d.consensusTimestamp >= SPURIOUS_TRANSFERS_BEFORE || SUCCESSFUL.has(d.outcome.result)) continue;
    const asked = readCryptoTransferBody(d.body);
    if (asked) failed.set(d.consensusTimestamp, asked.transfers);
  }
  if (failed.size === 0) return 0;
  let marked = 0;
  for (const row of rows.cryptoTransfer) {
    const asked = failed.get(row.consensus_timestamp as bigint);
    const spurious = asked?.some((a) => a.accountId === row.entity_id && a.amount === row.amount) === true;
    row.errata = spurious ? 'DELETE' : (row.errata ?? null);
    if (spurious) marked++;
  }
  // the state appliers read the decoded transactions: what never happened is not there
  for (const d of rows.decoded) {
    const asked = failed.get(d.consensusTimestamp);
    if (!asked) continue;
    const happened = d.outcome.transfers.filter((t) => !asked.some((a) => a.accountId === t.accountId && a.amount === t.amount));
    d.outcome = { ...d.outcome, transfers: happened };
  }
  return marked;
}
