/**
 * The ingestion loop: picks the walker for the source's layout, then writes each accepted file
 * (one database transaction per file) after the last stored one. `once` stops when nothing is new
 * and fails on the first file that cannot be accepted; following retries such a file, or a source
 * that failed to list or read, with backoff, reporting the stall, and polls with backoff while
 * nothing is new. Aborting `signal` lets the file
 * in hand finish (or roll back) and returns. The address book file 0.0.102 the stream publishes
 * replaces the initial book from the file after it on. With `balances`, the source's balance files
 * are taken too, each once the record files up to its time are in. On mainnet the errata are applied
 * to each file before it is written (src/ingest/errata).
 */
import type { Db } from '../db/db.js';
import { type StreamSource, StreamSourceError } from './sources/source.js';
import { StreamFileError } from './streamError.js';
import { encodeEntityId } from '../domain/entityId.js';
import type { AddressBook } from './verification/addressBook.js';
import { ADDRESS_BOOK_FILE_NUM, streamAddressBook } from './verification/streamAddressBook.js';
import { BlockWalker } from './walkers/blockWalker.js';
import { RecordStreamWalker } from './walkers/recordStreamWalker.js';
import type { TrustCheckpoint, Walker } from './walkers/walker.js';
import { type AcceptedFile, lastRecordFile, writeAcceptedFile } from './writers/recordFileWriter.js';
import { applyMainnetErrata } from './errata/mainnetErrata.js';
import type { MainnetErrata } from './errata/mainnetErrataFiles.js';
import { BalanceFileWalker } from './walkers/balanceFileWalker.js';
import { type AcceptedBalanceFile, lastBalanceFile, writeBalanceFile } from './writers/balanceFileWriter.js';

export interface IngestProgress {
  files: number;
  records: number;
  /** consensus end of the newest stored file (ns), null before any */
  newest: bigint | null;
  /** consecutive refusals of the file in hand (following) */
  failures: number;
  /** account balance files written (`balances`) */
  balanceFiles?: number;
}

export type IngestPhase = 'read' | 'write' | 'applied';

export interface IngestEvents {
  /** a file was written */
  written?(file: { name: string; index: bigint; count: number; consensusEnd: bigint }, progress: IngestProgress): void;
  /** the next file was refused; while following it is tried again after `retryMs` */
  refused?(error: StreamFileError, retryMs: number | null): void;
  /** the source could not be listed or read (following); it is tried again after `retryMs` */
  unavailable?(error: StreamSourceError, retryMs: number): void;
  /** nothing new; the source is polled again after `waitMs` */
  idle?(waitMs: number): void;
  /**
   * time spent on one step: `read` fetches, parses and verifies the next file, `write` stores it;
   * `applied`, reported before its file's `write`, is the part of the write the state appliers took
   */
  timed?(phase: IngestPhase, nanos: bigint): void;
}

export interface IngestOptions {
  source: StreamSource;
  book: AddressBook;
  /** with a bundled book (`--network`): the book in force at a time, for an empty database's first file */
  bookAt?: (startNanos: bigint) => AddressBook;
  network: string | null;
  trust: TrustCheckpoint | null;
  shardRealm: { shard: bigint; realm: bigint };
  /** also the account balance files of the source's `accountBalances/` (see BalanceFileWalker) */
  balances?: boolean;
  /** mainnet's errata files (`--errata DIR`), read at start-up; without them only the rules that need no file apply */
  errata?: MainnetErrata | null;
  once: boolean;
  /** first wait when nothing is new or a file is refused; doubles up to `maxPollMs` */
  pollMs?: number;
  maxPollMs?: number;
  signal?: AbortSignal;
  events?: IngestEvents;
}

const NO_RECORD_FILES: Walker = {
  kind: 'no record files',
  next: async () => null,
  firstFileNanos: async () => null,
  useAddressBook: () => {},
};

/** The walker for what the source holds: block files when it has `block/`, else record streams. */
export async function walkerFor(options: IngestOptions): Promise<Walker> {
  const { source, book, network, trust, shardRealm } = options;
  const top = await source.folders('');
  if (top.includes('block/')) return new BlockWalker({ source, book, trust, shardRealm });
  const recordLike = top.some((f) => f === 'recordstreams/' || /^\d+\/$/.test(f) || (network !== null && f === `${network}/`));
  // balance files alone: there is no record file to walk
  if (!recordLike && options.balances && top.includes('accountBalances/')) return NO_RECORD_FILES;
  if (!recordLike) {
    throw new StreamFileError(
      source.description,
      'holds neither block/ nor record streams (recordstreams/record0.0.N/ or <shard>/<nodeId>/record/)',
    );
  }
  return new RecordStreamWalker({ source, book, network, shardRealm });
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs until `once` finds nothing new, or `signal` aborts; returns the progress made. */
export async function ingest(db: Db, options: IngestOptions): Promise<IngestProgress> {
  const { signal, events } = options;
  const pollMs = options.pollMs ?? 1_000;
  const maxPollMs = options.maxPollMs ?? 30_000;
  const walker = await walkerFor(options);
  let last = await lastRecordFile(db);
  // the book the stream published last replaces the initial one, as the importer keeps it
  const stored = await streamAddressBook(db, options.shardRealm);
  let book = options.book;
  if (stored) book = stored;
  else if (last === null && options.bookAt) {
    const start = await walker.firstFileNanos().catch((e: unknown) => {
      // a first file that cannot be read is refused by the walk itself, with its reason
      if (e instanceof StreamFileError) return null;
      throw e;
    });
    if (start !== null) book = options.bookAt(start);
  }
  if (book !== options.book) walker.useAddressBook(book);
  const bookFile = encodeEntityId(options.shardRealm.shard, options.shardRealm.realm, ADDRESS_BOOK_FILE_NUM);
  const progress: IngestProgress = { files: 0, records: 0, newest: null, failures: 0, balanceFiles: 0 };
  const balances = options.balances ? new BalanceFileWalker(options.source, book) : null;
  let lastBalance = balances ? await lastBalanceFile(db) : null;
  /** the next balance file, read and verified, waiting for the record files up to its time */
  let pendingBalance: AcceptedBalanceFile | null = null;
  /** the source had no balance file after the last one: it is listed again only once the record files run out */
  let balancesExhausted = false;
  const context = { shardRealm: options.shardRealm, network: options.network, balanceFiles: options.balances === true };
  let wait = pollMs;
  progress.newest = last?.consensusEnd ?? null;
  while (!signal?.aborted) {
    let accepted: AcceptedFile | null;
    const readStart = process.hrtime.bigint();
    let listedBalances = false;
    try {
      if (balances && pendingBalance === null && !balancesExhausted) {
        listedBalances = true;
        const name = await balances.nextName(lastBalance?.name ?? null);
        if (name !== null) pendingBalance = await balances.accept(name);
        else balancesExhausted = true;
      }
      // a balance file goes in once the record files up to its time are in, so that the
      // transfers after it are the ones its starting state adds (see initialBalances.ts)
      const balanceDue = pendingBalance !== null && last !== null && pendingBalance.file.consensusTimestamp <= last.consensusEnd;
      accepted = balanceDue ? null : await walker.next(last);
      events?.timed?.('read', process.hrtime.bigint() - readStart);
    } catch (e) {
      const refused = e instanceof StreamFileError;
      if (options.once || !(refused || e instanceof StreamSourceError)) throw e;
      progress.failures++;
      if (refused) events?.refused?.(e, wait);
      else events?.unavailable?.(e, wait);
      await sleep(wait, signal);
      wait = Math.min(wait * 2, maxPollMs);
      continue;
    }
    if (accepted === null && pendingBalance !== null) {
      await writeBalanceFile(db, pendingBalance, options.network, options.errata?.balanceOffsets ?? null);
      lastBalance = { name: pendingBalance.file.name, consensusTimestamp: pendingBalance.file.consensusTimestamp };
      pendingBalance = null;
      progress.balanceFiles = (progress.balanceFiles ?? 0) + 1;
      progress.failures = 0;
      wait = pollMs;
      continue;
    }
    if (accepted === null) {
      if (balancesExhausted && !listedBalances) {
        // caught up with the record files: look for a new balance file once before waiting
        balancesExhausted = false;
        continue;
      }
      if (options.once) break;
      events?.idle?.(wait);
      await sleep(wait, signal);
      wait = Math.min(wait * 2, maxPollMs);
      continue;
    }
    const writeStart = process.hrtime.bigint();
    if (options.network === 'mainnet') applyMainnetErrata(accepted, last?.consensusEnd ?? null, options.shardRealm, options.errata ?? null);
    const timed = events?.timed;
    const index = await writeAcceptedFile(db, accepted, context, timed && ((nanos) => timed('applied', nanos)));
    events?.timed?.('write', process.hrtime.bigint() - writeStart);
    if (accepted.rows.fileData.some((row) => row.entity_id === bookFile)) {
      const published = await streamAddressBook(db, options.shardRealm);
      if (published) {
        walker.useAddressBook(published);
        balances?.useAddressBook(published);
      }
    }
    const { file } = accepted;
    wait = pollMs;
    progress.files++;
    progress.records += file.count;
    progress.newest = file.consensusEnd;
    progress.failures = 0;
    last = { name: file.name, index, hash: file.hash.toString('hex'), consensusEnd: file.consensusEnd, version: file.version };
    events?.written?.({ name: file.name, index, count: file.count, consensusEnd: file.consensusEnd }, progress);
  }
  return progress;
}
