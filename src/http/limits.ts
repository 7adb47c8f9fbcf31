/**
 * Protection against overload and hostile requests: a cap on requests being computed (excess gets
 * 503 with Retry-After rather than joining a queue that grows without bound), a bound on the time a
 * computed response may take to be written, and caps on URL length and the number of query
 * parameters. Health routes are outside the cap: an orchestrator must see a busy process as alive.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errorBody } from './errors.js';
import { RETRY_AFTER_SECONDS } from './errorHandler.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** answered whatever the number of requests in flight (health routes) */
    outsideInFlightLimit?: boolean;
  }
}

export function installLimits(app: FastifyInstance, config: Config): void {
  let inFlight = 0;
  /** requests holding a slot, until their response is computed */
  const holding = new WeakSet<FastifyRequest>();
  /** requests whose handler has started: those reach onSend whatever the client does */
  const handling = new WeakSet<FastifyRequest>();
  const release = (request: FastifyRequest) => {
    if (holding.delete(request)) inFlight--;
  };
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.outsideInFlightLimit) {
      if (closing) {
        // Fastify's own answer while closing is not the error envelope; this one is
        return reply
          .code(503)
          .header('connection', 'close')
          .header('retry-after', RETRY_AFTER_SECONDS)
          .send(errorBody(['Service unavailable']));
      }
      if (inFlight >= config.server.maxInFlight) {
        return reply
          .code(503)
          .header('retry-after', RETRY_AFTER_SECONDS)
          .send(errorBody(['Service unavailable']));
      }
      inFlight++;
      holding.add(request);
      // a client gone before its handler started frees the slot at once; a running handler frees it at onSend
      reply.raw.once('close', () => {
        if (!handling.has(request)) release(request);
      });
    }

    const url = request.url;
    if (url.length > config.server.maxUrlLength) {
      return reply.code(414).send(errorBody([uriTooLongMessage(config)]));
    }
    const queryStart = url.indexOf('?');
    if (queryStart >= 0) {
      let count = 1;
      for (let i = url.indexOf('&', queryStart); i !== -1; i = url.indexOf('&', i + 1)) count++;
      if (count > config.server.maxQueryParameters) {
        return reply.code(400).send(errorBody([`Too many query parameters: at most ${config.server.maxQueryParameters}`]));
      }
    }
  });

  app.addHook('preHandler', async (request) => {
    handling.add(request);
  });

  // the slot counts computation: a client slow to read its response no longer holds one
  app.addHook('onSend', async (request, reply, payload) => {
    release(request);
    const timeoutMs = config.server.responseTimeoutMs;
    if (timeoutMs > 0) {
      const res = reply.raw;
      const timer = setTimeout(() => {
        request.log.info({ timeoutMs }, 'response not written in time: connection closed');
        res.destroy();
      }, timeoutMs);
      timer.unref();
      const clear = () => clearTimeout(timer);
      res.once('finish', clear);
      res.once('close', clear);
    }
    return payload;
  });
}

export const uriTooLongMessage = (config: Config) => `URI too long: at most ${config.server.maxUrlLength} characters`;
