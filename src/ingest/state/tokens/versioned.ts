/**
 * A table's rows as the importer versions them, held in memory for one file: each key's current row
 * (loaded from the database or made by the file), and the versions the file closed. A change "with
 * history" (an association, a token update, an NFT's new owner…) closes the current version at its
 * consensus timestamp and starts a new one there, unless the current one began at that same
 * timestamp (two changes of one transaction merge into one version); a change "without history" (a
 * balance, a total supply) rewrites the current version in place.
 */

export interface Range {
  lower: bigint;
  upper: bigint | null;
}

export interface Versioned {
  timestamp_range: Range;
}

export class VersionedRows<R extends Versioned> {
  private readonly rows = new Map<string, R>();
  /** keys whose current row the file changed, to be written back */
  readonly changed = new Set<string>();
  /** the versions the file closed, for the history table */
  readonly closed: R[] = [];

  /** A row as stored before the file. */
  load(key: string, row: R): void {
    if (!this.rows.has(key)) this.rows.set(key, row);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  get(key: string): R | undefined {
    return this.rows.get(key);
  }

  /** every current row, with its key */
  entries(): IterableIterator<[string, R]> {
    return this.rows.entries();
  }

  /**
   * A change with history at `ts`: `next` makes the new version from the current one (undefined when
   * there is none); returning null leaves everything as it was.
   */
  version(key: string, ts: bigint, next: (current: R | undefined) => Omit<R, 'timestamp_range'> | null): R | null {
    const current = this.rows.get(key);
    const made = next(current);
    if (made === null) return null;
    if (current && current.timestamp_range.lower !== ts)
      this.closed.push({ ...current, timestamp_range: { lower: current.timestamp_range.lower, upper: ts } });
    const row = { ...made, timestamp_range: { lower: ts, upper: null } } as R;
    this.rows.set(key, row);
    this.changed.add(key);
    return row;
  }

  /** A change without history; nothing when the key has no current row. */
  update(key: string, change: (current: R) => void): boolean {
    const current = this.rows.get(key);
    if (!current) return false;
    change(current);
    this.changed.add(key);
    return true;
  }

  /** The current rows to write back. */
  changedRows(): R[] {
    return [...this.changed].map((k) => this.rows.get(k)!);
  }
}

/** A range as PostgreSQL reads it: `[lower,)` or `[lower,upper)`. */
export function rangeText(range: Range): string {
  return `[${range.lower},${range.upper ?? ''})`;
}
