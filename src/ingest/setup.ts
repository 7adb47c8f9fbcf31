/**
 * What `lqs ingest` and `serve` with `ingest.source` share before the loop starts: the database is
 * refused when a mirror node importer owns it, migrated otherwise, and the source, address book and
 * checkpoint are resolved from the options. Every problem is a UserError of one line.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { migrate } from '../db/migrate.js';
import { isMirrorNodeDatabase } from '../db/schemaRequirements.js';
import { UserError } from '../userError.js';
import type { IngestOptions } from './ingester.js';
import { openStreamSource } from './sources/openLocal.js';
import { type AddressBook, parseAddressBook } from './verification/addressBook.js';
import { bundledAddressBook } from './verification/bundledAddressBooks.js';
import { parseTrust } from './walkers/walker.js';
import { lastRecordFile } from './writers/recordFileWriter.js';

export type IngestSettings = Config['ingest'];

function addressBookOf(settings: IngestSettings, startNanos: bigint): AddressBook {
  try {
    if (settings.addressBook) return parseAddressBook(readFileSync(settings.addressBook), settings.addressBook);
    if (settings.network) return bundledAddressBook(settings.network, startNanos);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
  throw new UserError(
    'an address book verifies the signatures: give --address-book FILE or --network NAME (ingest.addressBook, ingest.network)',
  );
}

/** Checks the database and resolves the options; the caller closes the returned source. */
export async function prepareIngestion(db: Db, config: Config, settings: IngestSettings): Promise<Omit<IngestOptions, 'once'>> {
  if (await isMirrorNodeDatabase(db)) {
    throw new UserError(
      'Not ingesting into the database: it is a mirror node database (its flyway_schema_history table is there), which its importer writes',
    );
  }
  await migrate(db);
  let trust = null;
  try {
    trust = settings.trust ? parseTrust(settings.trust) : null;
  } catch (e) {
    throw new UserError((e as Error).message);
  }
  const last = await lastRecordFile(db);
  const book = addressBookOf(settings, last?.consensusEnd ?? 0n);
  const source = await openStreamSource(settings.source);
  const { network } = settings;
  const bookAt = !settings.addressBook && network ? (startNanos: bigint) => bundledAddressBook(network, startNanos) : undefined;
  return {
    source,
    book,
    bookAt,
    network: settings.network || null,
    trust,
    shardRealm: { shard: config.shard, realm: config.realm },
    pollMs: settings.pollMs,
    maxPollMs: settings.maxPollMs,
  };
}
