import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, errorBody } from './errors.js';
import { DatabaseUnavailableError } from '../db/db.js';
import { OutageLog } from './outageLog.js';

/** Seconds a client is told to wait after a 503 (every 503 carries it). */
export const RETRY_AFTER_SECONDS = '1';

/** Connection-level failures and server-side cancellations: the database, not the request, is at fault. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '57014', '53300', '08000', '08003', '08006', '08001', '08004']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|PGlite is closed|Cannot use a pool after calling end/i.test(message);
}

/**
 * Every error leaves as the reference's envelope: 4xx with its message, 503 (with Retry-After) for
 * the database, else 500. Database failures are counted in `outages` rather than logged one by one.
 */
export function installErrorHandling(app: FastifyInstance, outages: OutageLog = new OutageLog(app.log)): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, request, reply) => {
    if (err instanceof ApiError) {
      return reply.code(err.statusCode).send(errorBody(err.messages));
    }
    const status = (err as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return reply.code(status).send(errorBody([err.message]));
    }
    if (isDatabaseUnavailable(err)) {
      outages.record('request', err);
      return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).send(errorBody(['Service unavailable']));
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send(errorBody(['Internal error']));
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(['Not found'])));
}
