/**
 * Failed authentication attempts per client address: `maxFailures` failures within `windowMs` lock
 * the client out for `lockoutMs`; a success forgets its failures. At most `maxClients` addresses
 * are remembered, the least recently failing forgotten first, so memory stays bounded.
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

  /** how many clients are remembered (tests of the bound) */
  get size(): number {
    return this.entries.size;
  }
}
