/**
 * The one error path: whatever a hook or handler throws leaves as the reference's envelope through
 * `sendError`. 4xx with its message, 503 for the database (counted in an OutageLog rather than
 * logged one by one), else 500. A path no route serves (and a route's `reply.callNotFound()`) gets
 * 404, or is forwarded to the upstream when one is set (upstream.ts).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/db.js';
import { ApiError, notFound, sendError, serviceUnavailable } from './errors.js';
import { OutageLog } from './outageLog.js';
import type { NotServed } from './upstream.js';

export function installErrorHandling(app: FastifyInstance, outages: OutageLog = new OutageLog(app.log), notServed?: NotServed): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, request, reply) => {
    if (err instanceof ApiError) return sendError(reply, err);
    const status = (err as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendError(reply, new ApiError(status, [err.message]));
    if (isDatabaseUnavailable(err)) {
      outages.record('request', err);
      return sendError(reply, serviceUnavailable());
    }
    request.log.error({ err }, 'request failed');
    return sendError(reply, new ApiError(500, ['Internal error']));
  });

  app.setNotFoundHandler((request, reply) => (notServed ? notServed(request, reply) : sendError(reply, notFound())));
}
