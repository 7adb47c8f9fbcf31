/**
 * Logging of database unavailability in bounded volume. During an outage every request fails the
 * same way; a warning with a stack per request (about 1 KB each) would write megabytes a second.
 * Instead the first failure after a quiet interval is logged at once, with its reason, and then one
 * line per interval sums up what followed: how many requests were answered 503, how many idle
 * connections and readiness checks failed, and the reasons with their counts. The outage ends with
 * one line and its duration, from its first failure to the first sign that the database answers
 * again (a new pooled connection, a readiness check that passes), at warn like the line that
 * opened it, so that a log read at warn shows both ends.
 */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export type OutageEvent = 'request' | 'connection' | 'readiness';

/** distinct reasons counted per interval; further ones are counted as `other` */
const MAX_REASONS = 8;
const MAX_REASON_LENGTH = 160;

/** `code: message` of a database error, short and without a stack. */
export function outageReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const text = code && !message.includes(code) ? `${code}: ${message}` : message;
  return text.length > MAX_REASON_LENGTH ? text.slice(0, MAX_REASON_LENGTH) + '…' : text;
}

export class OutageLog {
  private counts: Record<OutageEvent, number> = { request: 0, connection: 0, readiness: 0 };
  private reasons = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  /** when the outage under way began (its first failure); null when the database answers */
  private since: number | null = null;
  /** when the database first answered after the outage's last failure; null while it fails */
  private recoveredAt: number | null = null;

  constructor(
    private readonly logger: WarnLogger,
    readonly intervalMs = 10_000,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Records one failure caused by the database. */
  record(event: OutageEvent, err: unknown): void {
    const reason = outageReason(err);
    this.since ??= this.nowMs();
    this.recoveredAt = null;
    if (this.timer === null) {
      // the first of an outage (or after a quiet interval): said at once
      this.logger.warn({ event, reason }, 'database unavailable');
      this.arm();
      return;
    }
    this.counts[event]++;
    const key = this.reasons.has(reason) || this.reasons.size < MAX_REASONS ? reason : 'other';
    this.reasons.set(key, (this.reasons.get(key) ?? 0) + 1);
  }

  /**
   * The database answered (a connection made, a readiness check passed). The outage under way, if
   * any, ends with one line at the end of the interval, unless it failed again meanwhile: a
   * database that fails every few seconds is summed up per interval, not told up and down each time.
   */
  available(): void {
    if (this.since === null || this.recoveredAt !== null) return;
    this.recoveredAt = this.nowMs();
    if (this.timer === null) this.flush();
  }

  private arm(): void {
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Logs the interval's summary, or the outage's end; a quiet interval stops the timer. */
  private flush(): void {
    this.timer = null;
    const { request, connection, readiness } = this.counts;
    const counts = { requests: request, connectionErrors: connection, readinessFailures: readiness };
    if (this.recoveredAt !== null && this.since !== null) {
      this.logger.warn({ outageMs: this.recoveredAt - this.since, ...counts }, 'database available again');
      this.since = null;
      this.recoveredAt = null;
    } else if (request + connection + readiness === 0) {
      return;
    } else {
      this.logger.warn({ intervalMs: this.intervalMs, ...counts, reasons: Object.fromEntries(this.reasons) }, 'database still unavailable');
      this.arm();
    }
    this.counts = { request: 0, connection: 0, readiness: 0 };
    this.reasons = new Map();
  }

  /** Writes what is pending (at shutdown) and stops the timer. */
  close(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
