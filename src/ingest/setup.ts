/**
 * What `lqs ingest` and `serve` with `ingest.source` share before the loop starts: the source (a
 * folder, or `s3://` with the `ingest.s3.*` settings), address book, checkpoint and mainnet's errata
 * folder are resolved from
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
import { type MainnetErrata, readMainnetErrata } from './errata/mainnetErrataFiles.js';
import { openStreamSource, type StreamSourceOptions } from './sources/open.js';
import type { StreamSource } from './sources/source.js';
import { type AddressBook, parseAddressBook } from './verification/addressBook.js';
import { bundledAddressBook, bundledAddressBookName } from './verification/bundledAddressBooks.js';
import { parseTrust, type TrustCheckpoint } from './walkers/walker.js';
import { lastRecordFile } from './writers/recordFileWriter.js';

export type IngestSettings = Config['ingest'];

/** The settings checked without the database: the checkpoint, the book (or its network), the errata, the source. */
export interface ResolvedIngestion {
  settings: IngestSettings;
  trust: TrustCheckpoint | null;
  /** mainnet's errata files of `ingest.errata`, read once; null without the folder */
  errata: MainnetErrata | null;
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

/** The errata folder of `ingest.errata`, read and checked; refused for a network other than mainnet. */
export function resolveErrata(settings: IngestSettings): MainnetErrata | null {
  if (!settings.errata) return null;
  if (settings.network !== 'mainnet') {
    throw new UserError(
      `the errata of --errata (ingest.errata) are mainnet's: they need --network mainnet (ingest.network), not ${settings.network ? `'${settings.network}'` : 'none'}`,
    );
  }
  return asUserError(() => readMainnetErrata(settings.errata));
}

/**
 * With `--network mainnet` and no errata folder: the one warning of start-up saying what is not
 * corrected and how to give the files; null otherwise.
 */
export function missingErrataWarning(settings: IngestSettings): string | null {
  if (settings.network !== 'mainnet' || settings.errata) return null;
  return (
    "network mainnet without its errata folder: the mirror node importer's corrections from its errata files are not applied " +
    '(the 113 missing transactions, the −1 ns time offsets of the balance files of balance-offsets.txt); ' +
    "give --errata DIR (ingest.errata, LQS_INGEST_ERRATA), a folder laid out as the importer's errata/mainnet " +
    '(balance-offsets.txt, missingtransactions/*.bin). The spurious transfers of failed 2019 CryptoTransfers need no file: marked still'
  );
}

/**
 * Refuses unusable settings before any database is opened; the caller closes the source. With
 * `reach`, the source's top folder is listed too, so that a bucket that is missing, refused or
 * unreachable is reported before the database is touched (`lqs ingest`; `serve` keeps retrying).
 */
export async function resolveIngestion(
  settings: IngestSettings,
  reach = false,
  /** the errata folder already read (serve reads it before opening the database); undefined: read here */
  errataRead?: MainnetErrata | null,
): Promise<ResolvedIngestion> {
  const trust = settings.trust ? asUserError(() => parseTrust(settings.trust)) : null;
  const errata = errataRead === undefined ? resolveErrata(settings) : errataRead;
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
  return { settings, trust, errata, bookFile, source };
}

/** Checks the database and completes the options; the caller closes the source (`resolved`'s, or the one returned). */
export async function prepareIngestion(
  db: Db,
  config: Config,
  settings: IngestSettings,
  resolved?: ResolvedIngestion,
  errataRead?: MainnetErrata | null,
): Promise<Omit<IngestOptions, 'once'>> {
  const { trust, errata, bookFile, source } = resolved ?? (await resolveIngestion(settings, false, errataRead));
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
      errata,
      pollMs: settings.pollMs,
      maxPollMs: settings.maxPollMs,
    };
  } catch (e) {
    // a source this function opened is its to close
    if (!resolved) await source.close();
    throw e;
  }
}
