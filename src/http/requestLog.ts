/**
 * Fastify's request log lines: `incoming request` at debug, one `request completed` line at info
 * with the method, route, url, status and duration; every line carries the request's `requestId`.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

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
