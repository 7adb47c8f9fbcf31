import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { schemaRef } from '../http/openapi.js';

/** Liveness (the process answers) and readiness (the database answers too). */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const schema = { response: { 200: schemaRef('Health'), 503: schemaRef('Health') } };
  app.get('/health/liveness', { schema }, async () => ({ status: 'UP' }));
  app.get('/health/readiness', { schema }, async (request, reply) => {
    try {
      await ctx.db.ping();
      return { status: 'UP' };
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed');
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}
