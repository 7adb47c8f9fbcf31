/**
 * The upstream (`upstream.url`): the reference REST service this one stands in front of. A request
 * for a path no route here serves is forwarded to it as received (method, path, query string,
 * headers and body, with this request's id in `X-Request-Id`) and its answer is passed back as it
 * came, instead of this service's 404; the paths this service serves are answered here, their 400s
 * and 404s included. @fastify/reply-from forwards (see the README's Path split for why it rather
 * than @fastify/http-proxy): it is called from the not-found handler, so what is forwarded is
 * exactly what the router does not match. An upstream that cannot be reached answers 502, one that
 * does not answer within `upstream.timeoutMs` 504, both in the error envelope.
 */
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError, sendError } from './errors.js';
import { REQUEST_ID_HEADER } from './requestId.js';

/** What the not-found handler does with a request: forward it, or answer 404. */
export type NotServed = (request: FastifyRequest, reply: FastifyReply) => void;

/** undici's and reply-from's names for an upstream that took too long (to connect, to send its headers, during its body). */
const TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'FST_REPLY_FROM_TIMEOUT',
  'FST_REPLY_FROM_GATEWAY_TIMEOUT',
]);

/** The answer to a request the upstream could not answer: 504 when it was too slow, else 502. */
export function upstreamFailure(error: unknown): ApiError {
  const { code, statusCode } = (error ?? {}) as { code?: string; statusCode?: number };
  return statusCode === 504 || (code !== undefined && TIMEOUTS.has(code))
    ? new ApiError(504, ['Gateway timeout'])
    : new ApiError(502, ['Bad gateway']);
}

/** Registers the forwarding on `app` (before its routes) and returns the not-found handler's forwarding step. */
export async function forwardToUpstream(app: FastifyInstance, upstream: Config['upstream']): Promise<NotServed> {
  const timeout = upstream.timeoutMs;
  await app.register(replyFrom, {
    base: upstream.url,
    undici: { connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout },
    // one line per request is the service's own (requestLog.ts)
    disableRequestLogging: true,
    // an answer is the upstream's to give: a 503 of the reference is passed on, not retried here
    maxRetriesOn503: 0,
  });
  return (request, reply) => {
    reply.from(request.url, {
      rewriteRequestHeaders: (_request, headers) => ({ ...headers, [REQUEST_ID_HEADER]: request.id }),
      onError: (failed, { error }) => {
        request.log.warn({ err: error, upstream: upstream.url }, 'upstream failed');
        sendError(failed as FastifyReply, upstreamFailure(error));
      },
    });
  };
}
