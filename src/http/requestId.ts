/**
 * Request ids: a caller's well-formed `X-Request-Id` is kept, otherwise one is generated; the id is
 * echoed on every response and is the `requestId` of every log line of the request, whose last line
 * (`request completed`) carries the method, route, status and duration.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** Up to 128 characters of letters, digits and `-_.:/+=@`: what tracing systems send, nothing that can forge a log line. */
const WELL_FORMED = /^[A-Za-z0-9\-_.:/+=@]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}

/** Fastify's request log lines: `incoming request` at debug, one `request completed` line at info. */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    return payload;
  });
}
