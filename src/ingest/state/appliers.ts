/**
 * The state appliers: what each accepted file's transactions change beyond their own rows (entities,
 * balances, tokens, NFTs, snapshots), applied in the file's database transaction, in this order,
 * after its `transaction` and transfer rows are written. Each applier owns its tables and reads the
 * file's decoded transactions in consensus order; ingestion is single-writer, so an applier may read
 * the current rows it changes and write them back.
 */
import type { Queryable } from '../../db/db.js';
import type { AcceptedFile } from '../writers/recordFileWriter.js';
import { balanceSnapshotApplier } from './balanceSnapshots.js';
import { applyEntities } from './entities/entityApplier.js';
import { applyTokens } from './tokens/applier.js';

export interface StateContext {
  shardRealm: { shard: bigint; realm: bigint };
  /** the network the stream is from (`mainnet`, `testnet`…), null when not known */
  network: string | null;
  /** the operator ingests the network's balance files (`ingest.balances`): no snapshots are taken then */
  balanceFiles?: boolean;
}

export type StateApplier = (tx: Queryable, accepted: AcceptedFile, context: StateContext) => Promise<void>;

export const STATE_APPLIERS: readonly StateApplier[] = [
  applyEntities,
  applyTokens,
  // last: the snapshot copies the balances the others left
  balanceSnapshotApplier,
];
