/**
 * Logging of database unavailability in bounded volume. During an outage every request fails the
 * same way; a warning with a stack per request (about 1 KB each) would write megabytes a second.
 * Instead the first failure after a quiet interval is logged at once, with its reason, and then one
 * line per interval sums up what followed: how many requests were answered 503, how many idle
 * connections and readiness checks failed, and the reasons with their counts. The outage ends, with
 * one info line and its duration, at the first sign that the database answers again: a new pooled
 * connection or a readiness check that succeeds.
 */
export interface OutageLogger {
  info(obj: object, msg: string): void;
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

  constructor(
    private readonly logger: OutageLogger,
    readonly intervalMs = 10_000,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Records one failure caused by the database. */
  record(event: OutageEvent, err: unknown): void {
    const reason = outageReason(err);
    this.since ??= this.nowMs();
    if (this.timer === null) {
      // the first of an outage (or after a quiet interval): said at once
      this.logger.warn({ event, reason }, 'database unavailable');
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
      return;
    }
    this.counts[event]++;
    const key = this.reasons.has(reason) || this.reasons.size < MAX_REASONS ? reason : 'other';
    this.reasons.set(key, (this.reasons.get(key) ?? 0) + 1);
  }

  /** The database answered (a connection made, a readiness check passed): ends the outage under way, if any, with one line. */
  available(): void {
    if (this.since === null) return;
    const { request, connection, readiness } = this.counts;
    this.logger.info(
      { outageMs: this.nowMs() - this.since, requests: request, connectionErrors: connection, readinessFailures: readiness },
      'database available again',
    );
    this.since = null;
    this.counts = { request: 0, connection: 0, readiness: 0 };
    this.reasons = new Map();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Logs the interval's summary, if anything happened in it; a quiet interval ends the outage. */
  private flush(): void {
    const { request, connection, readiness } = this.counts;
    if (request + connection + readiness === 0) {
      this.timer = null;
      return;
    }
    this.logger.warn(
      {
        intervalMs: this.intervalMs,
        requests: request,
        connectionErrors: connection,
        readinessFailures: readiness,
        reasons: Object.fromEntries(this.reasons),
      },
      'database still unavailable',
    );
    this.counts = { request: 0, connection: 0, readiness: 0 };
    this.reasons = new Map();
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
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
