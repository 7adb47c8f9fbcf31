/**
 * What a failed connection attempt or statement says about the server and what sits between it
 * and the service (a pooler such as PgBouncer), so that the pool reacts to each as it should.
 */

/** pg-pool's error when a request waited connectionTimeoutMillis for a busy pool: no attempt failed. */
export const isPoolWaitTimeout = (err: unknown) => err instanceof Error && /timeout exceeded when trying to connect/.test(err.message);

const code = (err: unknown) => (err as { code?: unknown } | null)?.code;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A new connection that opened but whose first statement got no answer in the connection timeout. */
export class SetupTimeoutError extends Error {
  constructor(ms: number) {
    super(`a new connection's first statement got no answer in ${ms} ms (a pooler with no free server connection?)`);
    this.name = 'SetupTimeoutError';
  }
}

/**
 * The server (or a pooler) takes no more connections, while it still answers those it has:
 * PostgreSQL at max_connections (53300) or out of memory for one more backend (53400), its slots
 * reserved for superusers, PgBouncer at max_client_conn, a connection not through in the timeout.
 */
export function isCapacityFailure(err: unknown): boolean {
  if (err instanceof SetupTimeoutError) return true;
  const c = code(err);
  if (c === '53300' || c === '53400') return true;
  return /too many clients|remaining connection slots are reserved|no more connections allowed|timeout expired|due to connection timeout/i.test(
    message(err),
  );
}

/**
 * A named statement missing, or already there, on the server connection: the connection is not the
 * session the service prepared it in, as behind a pooler in transaction mode.
 */
export function isPreparedStatementFailure(err: unknown): boolean {
  const c = code(err);
  return c === '42P05' || c === '26000';
}

/** `code: message` of an error, short, for a log line. */
export function shortReason(err: unknown): string {
  const c = code(err);
  const text = typeof c === 'string' && c !== '' ? `${c}: ${message(err)}` : message(err);
  return text.length > 160 ? text.slice(0, 160) + '…' : text;
}

/** `promise`, or a rejection with `onTimeout()` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
