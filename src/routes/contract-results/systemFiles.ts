/**
 * Which version of the fee schedule and exchange rate files (0.0.111, 0.0.112) holds at a
 * timestamp, answered in the process from the timestamps of their file_data rows, so that the
 * contract result statement does not look them up. The rows are read up to a watermark: the newest
 * transaction or contract result in the same snapshot. Rows are written in consensus order with
 * their transaction (the importer commits a record file at once), so no row at or below the
 * watermark can appear later, and a version at or below it is final. A result beyond the watermark
 * reads the rows after it (one statement shared by the requests waiting for it); should it still be
 * beyond (a replica behind the one that served the result), its versions are looked up by a
 * statement of their own. The rows are read anew every `maxAgeMs` (600 s, the longest max-age of the
 * responses), so that data loaded into a served database shows as the response cache lets it; a
 * reload under the service's control (the tests' fixtures) calls clear().
 */
import type { Queryable } from '../../db/db.js';
import { TransactionType } from '../../domain/transactionTypes.js';
import { findFileVersions, findFileRowsAfter, type FileVersion, type SystemFileRow } from './queries.js';

export interface SystemFiles {
  feeSchedule: bigint;
  exchangeRate: bigint;
}

export type SystemFileVersionsAt = { feeSchedule: FileVersion; exchangeRate: FileVersion };

const CREATE_OR_UPDATE = new Set<number>([TransactionType.FILECREATE, TransactionType.FILEUPDATE]);

/** One file's rows in consensus order, each with the index of the latest create or update at or before it (-1: none). */
class Timeline {
  private readonly timestamps: bigint[] = [];
  private readonly starts: number[] = [];

  append(row: SystemFileRow): void {
    const last = this.starts.length - 1;
    this.starts.push(CREATE_OR_UPDATE.has(row.transaction_type) ? this.timestamps.length : last < 0 ? -1 : this.starts[last]!);
    this.timestamps.push(row.consensus_timestamp);
  }

  /** The version at `timestamp`: from the latest create/update at or before it to the last row at or before it. */
  versionAt(timestamp: bigint, generation: number): FileVersion {
    let low = 0;
    let high = this.timestamps.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.timestamps[mid]! <= timestamp) low = mid + 1;
      else high = mid;
    }
    const last = low - 1;
    const start = last < 0 ? -1 : this.starts[last]!;
    return { key: start < 0 ? null : `${generation}:${this.timestamps[start]}/${this.timestamps[last]}` };
  }
}

/** How long rows read are trusted: the longest max-age of a response (a block or a contract result). */
export const SYSTEM_FILES_MAX_AGE_MS = 600_000;

export class SystemFileVersions {
  private readAt = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = SYSTEM_FILES_MAX_AGE_MS,
  ) {}

  /** changed by clear(), part of every key, so that versions read before a reload are never taken for later ones */
  private generation = 0;
  private files: SystemFiles | null = null;
  private timelines = new Map<bigint, Timeline>();
  /** every row at or below it is in the timelines; null before the first read */
  private watermark: bigint | null = null;
  private refresh: Promise<void> | null = null;

  /** Forgets every row (a data reload). */
  clear(): void {
    this.generation++;
    this.files = null;
    this.timelines = new Map();
    this.watermark = null;
    this.refresh = null;
  }

  async versionsAt(db: Queryable, files: SystemFiles, timestamp: bigint): Promise<SystemFileVersionsAt> {
    const otherFiles = this.files && (this.files.feeSchedule !== files.feeSchedule || this.files.exchangeRate !== files.exchangeRate);
    if (otherFiles || (this.watermark !== null && this.now() - this.readAt > this.maxAgeMs)) this.clear();
    if (!this.covers(timestamp)) await this.readNewRows(db, files);
    // a refresh under way may have started before this result was read: one more, started after it
    if (!this.covers(timestamp)) await this.readNewRows(db, files);
    if (!this.covers(timestamp)) return findFileVersions(db, files, timestamp);
    return {
      feeSchedule: this.timelines.get(files.feeSchedule)!.versionAt(timestamp, this.generation),
      exchangeRate: this.timelines.get(files.exchangeRate)!.versionAt(timestamp, this.generation),
    };
  }

  private covers(timestamp: bigint): boolean {
    return this.watermark !== null && timestamp <= this.watermark;
  }

  /** Reads the rows after the watermark, one statement at a time for every caller. */
  private readNewRows(db: Queryable, files: SystemFiles): Promise<void> {
    if (!this.refresh) {
      const refresh = this.read(db, files).finally(() => {
        if (this.refresh === refresh) this.refresh = null;
      });
      this.refresh = refresh;
    }
    return this.refresh;
  }

  private async read(db: Queryable, files: SystemFiles): Promise<void> {
    const generation = this.generation;
    const startedAt = this.now();
    const { watermark, rows } = await findFileRowsAfter(db, [files.feeSchedule, files.exchangeRate], this.watermark);
    // a reload during the read: its rows may be of the data before
    if (generation !== this.generation || watermark === null || (this.watermark !== null && watermark <= this.watermark)) return;
    if (this.watermark === null) this.readAt = startedAt;
    this.files = files;
    for (const file of [files.feeSchedule, files.exchangeRate]) if (!this.timelines.has(file)) this.timelines.set(file, new Timeline());
    for (const row of rows) this.timelines.get(row.entity_id)!.append(row);
    this.watermark = watermark;
  }
}
