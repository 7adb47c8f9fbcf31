/**
 * Writes one accepted file in ONE database transaction: its `record_file` row as the importer writes
 * it, then its transactions' rows (one statement per table). Files before v6 carry no block number: they get the previous row's
 * index + 1 (0 for the first), and when the first v6 file follows such rows every earlier row is
 * shifted so that the indexes run on into the v6 file's block number, as the importer anchors them.
 */
import type { Db, Queryable } from '../../db/db.js';
import { type ColumnValues, insertRows } from '../../ledgerSetup/insert.js';
import type { NativeBlock, RecordFile } from '../recordFile.js';
import { STATE_APPLIERS, type StateContext } from '../state/appliers.js';
import { insertColumns } from './columnInsert.js';
import type { TransactionRows } from './transactionRows.js';

export interface AcceptedFile {
  file: RecordFile | NativeBlock;
  /** the node whose copy was kept (record streams); null for blocks */
  nodeId: bigint | null;
  rows: TransactionRows;
}

/** What the writer and the walkers need of the newest stored row, to continue after it. */
export interface LastRow {
  name: string;
  index: bigint;
  hash: string;
  consensusEnd: bigint;
  version: number;
}

export async function lastRecordFile(db: Queryable): Promise<LastRow | null> {
  const rows = await db.query<{ name: string; index: bigint; hash: string; consensus_end: bigint; version: number }>(
    'select name, index, hash, consensus_end, version from record_file order by consensus_end desc limit 1',
  );
  const row = rows[0];
  return row ? { name: row.name, index: row.index, hash: row.hash, consensusEnd: row.consensus_end, version: row.version } : null;
}

function hex(bytes: Buffer | null): string | null {
  return bytes === null ? null : bytes.toString('hex');
}

function recordFileRow(accepted: AcceptedFile, index: bigint, loadStart: bigint): ColumnValues {
  const f = accepted.file;
  const software = 'softwareVersion' in f ? f.softwareVersion : null;
  return {
    consensus_start: f.consensusStart,
    consensus_end: f.consensusEnd,
    count: BigInt(f.count),
    digest_algorithm: 0,
    file_hash: hex(f.fileHash),
    gas_used: f.gasUsed,
    hapi_version_major: f.hapiVersion?.major ?? null,
    hapi_version_minor: f.hapiVersion?.minor ?? null,
    hapi_version_patch: f.hapiVersion?.patch ?? null,
    hash: hex(f.hash),
    index,
    load_start: loadStart,
    load_end: BigInt(Math.floor(Date.now() / 1000)),
    logs_bloom: f.logsBloom,
    metadata_hash: hex(f.metadataHash),
    name: f.name,
    node_id: accepted.nodeId,
    prev_hash: hex(f.prevHash),
    sidecar_count: f.sidecars.length,
    size: f.size,
    software_version_major: software?.major ?? null,
    software_version_minor: software?.minor ?? null,
    software_version_patch: software?.patch ?? null,
    version: f.version,
    round_start: 'roundStart' in f ? f.roundStart : null,
    round_end: 'roundEnd' in f ? f.roundEnd : null,
  };
}

/** The index the file's row gets, shifting earlier pre-v6 rows when a block number first appears. */
async function anchorIndex(tx: Queryable, file: RecordFile | NativeBlock): Promise<bigint> {
  const last = await lastRecordFile(tx);
  if (file.index === null) return last ? last.index + 1n : 0n;
  if (last && last.version < 6) {
    const shift = file.index - last.index - 1n;
    if (shift !== 0n) await tx.query('update record_file set index = index + $1', [shift]);
  }
  return file.index;
}

/**
 * Writes the file's rows and applies its state changes; throws (and writes nothing) when any statement fails.
 * `applied` is told the time the state appliers took.
 */
export async function writeAcceptedFile(
  db: Db,
  accepted: AcceptedFile,
  context: StateContext,
  applied?: (nanos: bigint) => void,
): Promise<bigint> {
  const loadStart = BigInt(Math.floor(Date.now() / 1000));
  return db.transaction(async (tx) => {
    const index = await anchorIndex(tx, accepted.file);
    await insertRows(tx, 'record_file', [recordFileRow(accepted, index, loadStart)]);
    const { rows } = accepted;
    await insertColumns(db, tx, 'transaction', rows.transaction);
    await insertColumns(db, tx, 'crypto_transfer', rows.cryptoTransfer);
    await insertColumns(db, tx, 'token_transfer', rows.tokenTransfer);
    await insertColumns(db, tx, 'staking_reward_transfer', rows.stakingRewardTransfer);
    await insertColumns(db, tx, 'file_data', rows.fileData);
    const applyStart = process.hrtime.bigint();
    for (const apply of STATE_APPLIERS) await apply(tx, accepted, context);
    applied?.(process.hrtime.bigint() - applyStart);
    return index;
  });
}
