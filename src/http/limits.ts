/**
 * Protection against overload and hostile requests: a cap on requests in flight (excess gets 503
 * with Retry-After rather than joining a queue that grows without bound), on URL length and on the
 * number of query parameters.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { errorBody } from './errors.js';

export function installLimits(app: FastifyInstance, config: Config): void {
  let inFlight = 0;
  app.addHook('onRequest', async (request, reply) => {
    if (inFlight >= config.server.maxInFlight) {
      request.log.warn({ inFlight }, 'too many requests in flight');
      return reply.code(503).header('retry-after', '1').send(errorBody(['Service unavailable']));
    }
    inFlight++;
    reply.raw.once('close', () => inFlight--);

    const url = request.url;
    if (url.length > config.server.maxUrlLength) {
      return reply.code(414).send(errorBody([`URI too long: at most ${config.server.maxUrlLength} characters`]));
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
}
