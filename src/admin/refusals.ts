/**
 * Logging of admin refusals (429) in bounded volume. A guesser that keeps knocking after a lockout
 * gets a 429 per request, thousands a second; a line each (about 300 bytes) would fill the disk.
 * The first `maxLines` refusals of an interval are logged one by one; the rest are counted, and one
 * summary line at the end of the interval says how many there were, for which reasons, from how
 * many client addresses and for how many user names.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface Refusal {
  user: string | undefined;
  clientAddress: string;
  reason: string;
  retryAfterSeconds: number;
}

/** distinct addresses and user names counted per interval, at most */
const MAX_DISTINCT = 10_000;

export class RefusalLog {
  private logged = 0;
  private suppressed = 0;
  private reasons = new Map<string, number>();
  private addresses = new Set<string>();
  private users = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: FastifyBaseLogger,
    private readonly intervalMs = 10_000,
    private readonly maxLines = 10,
  ) {}

  record(log: FastifyBaseLogger, refusal: Refusal): void {
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
    if (this.logged < this.maxLines) {
      this.logged++;
      log.warn(refusal, 'admin request refused');
      return;
    }
    this.suppressed++;
    this.reasons.set(refusal.reason, (this.reasons.get(refusal.reason) ?? 0) + 1);
    if (this.addresses.size < MAX_DISTINCT) this.addresses.add(refusal.clientAddress);
    if (refusal.user !== undefined && this.users.size < MAX_DISTINCT) this.users.add(refusal.user);
  }

  private flush(): void {
    this.timer = null;
    if (this.suppressed > 0) {
      this.logger.warn(
        {
          intervalMs: this.intervalMs,
          refused: this.suppressed,
          reasons: Object.fromEntries(this.reasons),
          clientAddresses: this.addresses.size,
          users: this.users.size,
        },
        'admin requests refused beyond those logged',
      );
    }
    this.logged = 0;
    this.suppressed = 0;
    this.reasons = new Map();
    this.addresses = new Set();
    this.users = new Set();
  }
}
