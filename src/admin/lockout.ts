/**
 * Failed authentication attempts per key (a client address, a user name, or one key for all):
 * `maxFailures` failures within `windowMs` lock the key out for `lockoutMs`; a success forgets its
 * failures. At most `maxClients` keys are remembered, the least recently failing forgotten first,
 * so memory stays bounded.
 */
export interface LockoutSettings {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  maxClients: number;
}

interface Entry {
  failures: number;
  windowStart: number;
  lockedUntil: number;
}

export class FailureTracker {
  /** insertion order is recency: a failing client is moved to the end */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly settings: () => LockoutSettings,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Milliseconds `client` is still locked out for, 0 when it is not. */
  lockedFor(client: string): number {
    const entry = this.entries.get(client);
    if (!entry) return 0;
    const now = this.nowMs();
    if (entry.lockedUntil > now) return entry.lockedUntil - now;
    if (entry.lockedUntil > 0 || now - entry.windowStart >= this.settings().windowMs) this.entries.delete(client);
    return 0;
  }

  /** Records a failure; true when it locks the client out. */
  fail(client: string): boolean {
    const { maxFailures, windowMs, lockoutMs, maxClients } = this.settings();
    if (maxFailures <= 0) return false;
    const now = this.nowMs();
    let entry = this.entries.get(client);
    this.entries.delete(client);
    // a lockout in force stays (attempts checked while it began); an expired one or window starts afresh
    if (!entry || (entry.lockedUntil > 0 && entry.lockedUntil <= now) || (entry.lockedUntil === 0 && now - entry.windowStart >= windowMs)) {
      entry = { failures: 0, windowStart: now, lockedUntil: 0 };
    }
    entry.failures += 1;
    if (entry.lockedUntil === 0 && entry.failures >= maxFailures) entry.lockedUntil = now + lockoutMs;
    this.entries.set(client, entry);
    while (this.entries.size > Math.max(1, maxClients)) this.entries.delete(this.entries.keys().next().value!);
    return entry.lockedUntil > 0;
  }

  succeed(client: string): void {
    this.entries.delete(client);
  }

  /** Takes back one failure recorded for `client` (one counted before a check that then succeeded). */
  forgive(client: string): void {
    const entry = this.entries.get(client);
    if (entry && entry.lockedUntil === 0 && entry.failures > 0) entry.failures -= 1;
  }

  /** how many clients are remembered (tests of the bound) */
  get size(): number {
    return this.entries.size;
  }
}

export interface VerificationSettings {
  /** verifications running at once; 0 or less: no bound */
  maxConcurrent: number;
  /** verifications a second, as a token bucket holding a second's worth; 0 or less: no bound */
  perSecond: number;
}

/**
 * A bound on costly password verifications (scrypt: tens of milliseconds of CPU and 16 MiB each),
 * so that guessing cannot take the CPU and the thread pool from the public API: at most
 * `maxConcurrent` at once and `perSecond` a second. Beyond it a request is refused, not queued.
 */
export class VerificationLimiter {
  private running = 0;
  private tokens: number | null = null;
  private refilledAt = 0;

  constructor(
    private readonly settings: () => VerificationSettings,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Takes a slot if one is free; `release` must follow. */
  tryAcquire(): boolean {
    const { maxConcurrent, perSecond } = this.settings();
    if (maxConcurrent > 0 && this.running >= maxConcurrent) return false;
    if (perSecond > 0) {
      const now = this.nowMs();
      this.tokens = Math.min(perSecond, (this.tokens ?? perSecond) + ((now - this.refilledAt) * perSecond) / 1000);
      this.refilledAt = now;
      if (this.tokens < 1) return false;
      this.tokens -= 1;
    }
    this.running++;
    return true;
  }

  release(): void {
    this.running = Math.max(0, this.running - 1);
  }

  /** verifications running now */
  get active(): number {
    return this.running;
  }
}
