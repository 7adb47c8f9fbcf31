/**
 * Admission of requests to a pool's connections. Requests beyond the connections the pool may use
 * wait here, in arrival order, up to the connection timeout. The pool may use `db.poolSize`
 * connections, or fewer once the server refused one more (PostgreSQL at max_connections, a pooler
 * with fewer server connections than the pool): then requests queue on the connections it has, as
 * a pooler does, instead of failing. One more connection is tried again after GROW_RETRY_MIN_MS,
 * twice as late after each refusal that follows closely, up to GROW_RETRY_MAX_MS: an attempt costs
 * the request that makes it up to the connection timeout when a pooler holds it.
 */
import { DatabaseUnavailableError } from './db.js';

/** How long the pool holds to the connections it has after the server refused one more: at first, and at most. */
export const GROW_RETRY_MIN_MS = 1_000;
export const GROW_RETRY_MAX_MS = 30_000;

/** Why a request waited: every connection the pool may open is busy, or the server refuses more. */
export type WaitReason = 'pool full' | 'connection limit';

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
}

export class CheckoutGate {
  private limit: number | null = null;
  private limitedAt = -Infinity;
  private retryMs = GROW_RETRY_MIN_MS;
  private inUse = 0;
  private readonly waiters: Waiter[] = [];
  /** requests that had to wait, since start-up */
  waits = 0;

  constructor(
    private readonly size: number,
    private readonly waitTimeoutMs: number,
    private readonly onWait: (reason: WaitReason) => void,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Connections the pool may use now. */
  capacity(): number {
    if (this.limit !== null && this.nowMs() - this.limitedAt >= this.retryMs) this.limit = null;
    return Math.min(this.size, this.limit ?? this.size);
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves when the request may take a connection; rejects after the connection timeout. */
  async enter(): Promise<void> {
    if (this.waiters.length === 0 && this.inUse < this.capacity()) {
      this.inUse++;
      return;
    }
    this.waits++;
    this.onWait(this.limit === null ? 'pool full' : 'connection limit');
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          // pg-pool's wording, which the error path takes as a busy pool, not a failed connection attempt
          reject(new DatabaseUnavailableError('timeout exceeded when trying to connect: every pooled connection stayed busy'));
        }, this.waitTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** A request is done with its connection (or gave up taking one): the next waiter gets its place. */
  leave(): void {
    this.inUse--;
    this.admitWaiting();
  }

  /** The server refused a connection beyond the `open` ones: hold to those for a while. */
  limitTo(open: number): void {
    const now = this.nowMs();
    const soonAfter = now - this.limitedAt < 2 * this.retryMs;
    this.retryMs = soonAfter ? Math.min(GROW_RETRY_MAX_MS, this.retryMs * 2) : GROW_RETRY_MIN_MS;
    this.limit = open;
    this.limitedAt = now;
  }

  private admitWaiting(): void {
    while (this.waiters.length > 0 && this.inUse < this.capacity()) {
      const next = this.waiters.shift()!;
      clearTimeout(next.timer);
      this.inUse++;
      next.admit();
    }
  }
}
