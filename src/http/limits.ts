/**
 * Protection against overload and hostile requests: a cap on requests being computed (excess gets
 * 503 rather than joining a queue that grows without bound), a bound on the time a computed
 * response may take to be written, and caps on URL length and the number of query parameters.
 * Health routes are outside the cap: an orchestrator must see a busy process as alive. These are
 * steps of the request pipeline (pipeline.ts), which holds whether a request has a slot.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError, serviceUnavailable, uriTooLong } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** answered whatever the number of requests in flight (health routes) */
    outsideInFlightLimit?: boolean;
  }
}

/** The slots of requests being computed: taken at onRequest, given back once the response is computed or the client gone. */
export class InFlightSlots {
  private inFlight = 0;
  private closing = false;

  /** `server.maxInFlight` is read per request */
  constructor(private readonly config: Config) {}

  /** From close() on, requests that would take a slot are refused. */
  close(): void {
    this.closing = true;
  }

  /** Takes a slot for `request` (false for a route outside the limit); throws the 503 when none is left or the app is closing. */
  take(request: FastifyRequest): boolean {
    if (request.routeOptions.config.outsideInFlightLimit) return false;
    // Fastify's own answer while closing is not the error envelope; this one is
    if (this.closing) throw serviceUnavailable({ connection: 'close' });
    if (this.inFlight >= this.config.server.maxInFlight) throw serviceUnavailable();
    this.inFlight++;
    return true;
  }

  release(): void {
    this.inFlight--;
  }
}

/** Throws the 414 or 400 of a URL over `server.maxUrlLength` or with more than `server.maxQueryParameters` parameters. */
export function checkUrl(url: string, server: Config['server']): void {
  if (url.length > server.maxUrlLength) throw uriTooLong(server.maxUrlLength);
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return;
  let count = 1;
  for (let i = url.indexOf('&', queryStart); i !== -1; i = url.indexOf('&', i + 1)) count++;
  if (count > server.maxQueryParameters) {
    throw new ApiError(400, [`Too many query parameters: at most ${server.maxQueryParameters}`]);
  }
}

/**
 * Closes the connection of a response not written within `timeoutMs` (a client that does not read
 * it). The caller clears the returned timer when the response's 'close' comes (after it is written,
 * or when the connection goes): the pipeline's one 'close' listener per request does.
 */
export function limitWriteTime(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): NodeJS.Timeout | null {
  if (timeoutMs <= 0) return null;
  const res = reply.raw;
  const timer = setTimeout(() => {
    request.log.info({ timeoutMs }, 'response not written in time: connection closed');
    res.destroy();
  }, timeoutMs);
  timer.unref();
  return timer;
}
