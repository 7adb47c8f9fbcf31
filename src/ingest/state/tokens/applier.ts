/**
 * The token applier: `token` (and `token_history`), `token_account` (and its history) and `nft` (and
 * its history) from each file's successful token transactions and transfer lists, and the
 * `nft_transfer` of their `transaction` rows. Per file: the touched rows are read once, the file's
 * transactions applied to them in memory in consensus order, and the changes written in a few
 * statements.
 */
import type { Queryable } from '../../../db/db.js';
import type { AcceptedFile } from '../../writers/recordFileWriter.js';
import type { StateApplier } from '../appliers.js';
import { TokenState } from './apply.js';
import { type TokenTransaction, tokenTransactionOf } from './decode.js';
import { loadTouched, writeChanges } from './store.js';
import { touchedKeys } from './touched.js';

/** Token metadata fields count from HAPI 0.49 (services 0.48 ignored them), as the importer reads them. */
function readsTokenMetadata(accepted: AcceptedFile): boolean {
  const v = accepted.file.hapiVersion;
  return v !== null && (v.major > 0 || v.minor >= 49);
}

export const applyTokens: StateApplier = async (tx: Queryable, accepted: AcceptedFile): Promise<void> => {
  const transactions: TokenTransaction[] = [];
  for (const d of accepted.rows.decoded) {
    const t = tokenTransactionOf(d);
    if (t) transactions.push(t);
  }
  if (transactions.length === 0) return;
  const state = new TokenState(readsTokenMetadata(accepted));
  await loadTouched(tx, touchedKeys(transactions), state);
  for (const t of transactions) state.apply(t);
  await writeChanges(tx, state);
};
