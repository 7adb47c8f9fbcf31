/**
 * What `lqs ingest` and `serve` with `ingest.source` share before the loop starts: the source (a
 * folder, or `s3://` with the `ingest.s3.*` settings), address book and checkpoint are resolved from
 * the options (before any database is opened), then the database is refused when a mirror node
 * importer owns it, migrated otherwise. Every problem is a UserError of one line.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { migrate } from '../db/migrate.js';
import { isMirrorNodeDatabase } from '../db/schemaRequirements.js';
import { UserError } from '../userError.js';
import type { IngestOptions } from './ingester.js';
import { openStreamSource, type StreamSourceOptions } from './sources/open.js';
import type { StreamSource } from './sources/source.js';
import { type AddressBook, parseAddressBook } from './verification/addressBook.js';
import { bundledAddressBook, bundledAddressBookName } from './verification/bundledAddressBooks.js';
import { parseTrust, type TrustCheckpoint } from './walkers/walker.js';
import { lastRecordFile } from './writers/recordFileWriter.js';

export type IngestSettings = Config['ingest'];

/** The settings checked without the database: the checkpoint, the book (or its network), the source. */
export interface ResolvedIngestion {
  settings: IngestSettings;
  trust: TrustCheckpoint | null;
  /** the book of `--address-book`; null with a bundled one, chosen by time once the database is open */
  bookFile: AddressBook | null;
  source: StreamSource;
}

function asUserError<T>(work: () => T): T {
  try {
    return work();
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}

/** The S3 client's options from `ingest.s3.*` (empty strings: the SDK's defaults). */
export function s3Options(s3: IngestSettings['s3']): StreamSourceOptions {
  return {
    ...(s3.region ? { region: s3.region } : {}),
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    requesterPays: s3.requesterPays,
    anonymous: s3.anonymous,
    ...(s3.gcsProject ? { gcsProject: s3.gcsProject } : {}),
  };
}

/**
 * Refuses unusable settings before any database is opened; the caller closes the source. With
 * `reach`, the source's top folder is listed too, so that a bucket that is missing, refused or
 * unreachable is reported before the database is touched (`lqs ingest`; `serve` keeps retrying).
 */
export async function resolveIngestion(settings: IngestSettings, reach = false): Promise<ResolvedIngestion> {
  const trust = settings.trust ? asUserError(() => parseTrust(settings.trust)) : null;
  let bookFile: AddressBook | null = null;
  if (settings.addressBook) {
    bookFile = asUserError(() => parseAddressBook(readFileSync(settings.addressBook), settings.addressBook));
  } else if (settings.network) {
    asUserError(() => bundledAddressBookName(settings.network, 0n));
  } else {
    throw new UserError(
      'an address book verifies the signatures: give --address-book FILE or --network NAME (ingest.addressBook, ingest.network)',
    );
  }
  const source = await openStreamSource(settings.source, s3Options(settings.s3)).catch((e: Error) => {
    throw new UserError(e.message);
  });
  if (reach) {
    try {
      await source.folders('');
    } catch (e) {
      await source.close();
      throw new UserError((e as Error).message);
    }
  }
  return { settings, trust, bookFile, source };
}

/** Checks the database and completes the options; the caller closes the source (`resolved`'s, or the one returned). */
export async function prepareIngestion(
  db: Db,
  config: Config,
  settings: IngestSettings,
  resolved?: ResolvedIngestion,
): Promise<Omit<IngestOptions, 'once'>> {
  const { trust, bookFile, source } = resolved ?? (await resolveIngestion(settings));
  try {
    if (await isMirrorNodeDatabase(db)) {
      throw new UserError(
        'Not ingesting into the database: it is a mirror node database (its flyway_schema_history table is there), which its importer writes',
      );
    }
    await migrate(db);
    const last = await lastRecordFile(db);
    const { network } = settings;
    const book = bookFile ?? bundledAddressBook(network, last?.consensusEnd ?? 0n);
    const bookAt = bookFile === null ? (startNanos: bigint) => bundledAddressBook(network, startNanos) : undefined;
    return {
      source,
      book,
      bookAt,
      network: network || null,
      trust,
      shardRealm: { shard: config.shard, realm: config.realm },
      balances: settings.balances,
      pollMs: settings.pollMs,
      maxPollMs: settings.maxPollMs,
    };
  } catch (e) {
    // a source this function opened is its to close
    if (!resolved) await source.close();
    throw e;
  }
}
