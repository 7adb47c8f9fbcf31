/**
 * Fastify's request log lines: `incoming request` at debug, one `request completed` line with the
 * method, route, url, status and duration; every line carries the request's `requestId`. Errors
 * (4xx, 5xx) are logged at info every time; other answers at the rate `log.sampleRate` says (the
 * reference's meaning: a share of successful requests), and health probes, which a load balancer
 * sends every few seconds, at debug.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const PROBES = new Set(['/health/liveness', '/health/readiness']);

export class RequestLogController extends LogController {
  constructor(
    private readonly sampleRate = 1,
    private readonly random: () => number = Math.random,
  ) {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? null;
    const fields = {
      method: request.method,
      route,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else if (route !== null && PROBES.has(route) && reply.statusCode < 400) reply.log.debug(fields, 'request completed');
    else if (reply.statusCode >= 400 || this.sampleRate >= 1 || this.random() < this.sampleRate)
      reply.log.info(fields, 'request completed');
    else reply.log.debug(fields, 'request completed');
  }
}
