import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, errorBody } from './errors.js';
import { isDatabaseUnavailable } from '../db/db.js';
import { OutageLog } from './outageLog.js';

/** The classifier lives beside the database interface; re-exported for the modules that import it from here. */
export { isDatabaseUnavailable };

/** Seconds a client is told to wait after a 503 (every 503 carries it). */
export const RETRY_AFTER_SECONDS = '1';

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
      return reply
        .code(503)
        .header('retry-after', RETRY_AFTER_SECONDS)
        .send(errorBody(['Service unavailable']));
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send(errorBody(['Internal error']));
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(['Not found'])));
}
