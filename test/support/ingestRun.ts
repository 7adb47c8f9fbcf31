/** Runs the ingester as `lqs ingest --once` does, on a test database, and reads back what it wrote. */
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { type IngestEvents, type IngestProgress, ingest } from '../../src/ingest/ingester.js';
import { prepareIngestion } from '../../src/ingest/setup.js';

export interface RunOptions {
  addressBook?: string;
  network?: string;
  trust?: string;
  balances?: boolean;
  /** mainnet's errata folder (`--errata`) */
  errata?: string;
  signal?: AbortSignal;
  events?: IngestEvents;
}

export async function ingestOnce(db: Db, config: Config, source: string, options: RunOptions = {}): Promise<IngestProgress> {
  const settings = {
    ...config.ingest,
    source,
    addressBook: options.addressBook ?? '',
    network: options.network ?? '',
    trust: options.trust ?? '',
    balances: options.balances ?? false,
    errata: options.errata ?? '',
  };
  const prepared = await prepareIngestion(db, config, settings);
  try {
    return await ingest(db, { ...prepared, once: true, signal: options.signal, events: options.events });
  } finally {
    await prepared.source.close();
  }
}

const RECORD_FILE_COLUMNS =
  'index, name, size, count, consensus_start, consensus_end, hash, prev_hash, file_hash, metadata_hash, version, gas_used, ' +
  'logs_bloom, hapi_version_major, hapi_version_minor, hapi_version_patch, sidecar_count, node_id, round_start, round_end, ' +
  'software_version_major, software_version_minor, software_version_patch, digest_algorithm';

/** Every row the ingester writes, in a stable order (load times left out). */
export async function writtenRows(db: Db): Promise<Record<string, unknown[]>> {
  return {
    record_file: await db.query(`select ${RECORD_FILE_COLUMNS} from record_file order by consensus_end`),
    transaction: await db.query('select * from transaction order by consensus_timestamp'),
    crypto_transfer: await db.query('select * from crypto_transfer order by consensus_timestamp, entity_id, amount'),
    token_transfer: await db.query('select * from token_transfer order by consensus_timestamp, token_id, account_id, amount'),
    staking_reward_transfer: await db.query('select * from staking_reward_transfer order by consensus_timestamp, account_id'),
    file_data: await db.query('select * from file_data order by consensus_timestamp'),
  };
}
