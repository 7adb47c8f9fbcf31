/**
 * The pool's own log lines, apart from "database unavailable": requests waiting for a connection,
 * the server refusing more connections, a pooler that does not keep named statements. Each is said
 * at once, then summed up at most once per interval while it goes on.
 */
export interface PoolLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const INTERVAL_MS = 10_000;

/** One warning line said at once, then at most once per interval with how many times it happened since. */
export class RateLimitedWarning {
  private last = -Infinity;
  private since = 0;

  constructor(
    private readonly logger: PoolLogger | undefined,
    private readonly message: string,
    private readonly intervalMs = INTERVAL_MS,
    private readonly nowMs: () => number = Date.now,
  ) {}

  say(fields: object): void {
    this.since++;
    const now = this.nowMs();
    if (now - this.last < this.intervalMs) return;
    this.logger?.warn({ ...fields, times: this.since }, this.message);
    this.last = now;
    this.since = 0;
  }
}
