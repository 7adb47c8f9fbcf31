/**
 * Request ids: a caller's well-formed `X-Request-Id` is kept, otherwise one is generated; the id is
 * echoed on every response (the pipeline's header step) and is the `requestId` of every log line of
 * the request (requestLog.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Up to 128 characters of letters, digits and `-_.:/+=@`: what tracing systems send, nothing that can forge a log line. */
const WELL_FORMED = /^[A-Za-z0-9\-_.:/+=@]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/** Fastify's genReqId. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}
