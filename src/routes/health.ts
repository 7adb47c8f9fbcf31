import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { OutageLog } from '../http/outageLog.js';
import { schemaRef } from '../http/openapi.js';

/**
 * Liveness (the process answers: 200 whenever it runs) and readiness (the database answers too,
 * else 503 (Retry-After is added by the pipeline); with read replicas, ready while the primary or a replica in rotation
 * answers, and each pool's state and lag listed under `pools`; the optional indexes the database
 * lacks under `missingOptionalIndexes`). Both are outside the in-flight limit, and readiness answers 503, never
 * 500, whatever its check throws.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext, outages: OutageLog): void {
  const schema = { response: { 200: schemaRef('Health'), 503: schemaRef('Health') } };
  const config = { outsideInFlightLimit: true };
  // the database is ready without them; the operator learns what `lqs indexes` would speed up
  const missingIndexes =
    ctx.missingIndexes.length > 0 ? { missingOptionalIndexes: ctx.missingIndexes.map(({ name, slows }) => ({ name, slows })) } : {};
  app.get('/health/liveness', { schema, config }, async () => ({ status: 'UP' }));
  app.get('/health/readiness', { schema, config }, async (_request, reply) => {
    try {
      await ctx.db.ping();
      outages.available();
      // with read replicas: each pool's state and replay lag beside the status
      const pools = ctx.db.pools?.().map(({ name, state, lagMs }) => ({ name, state, lagMs }));
      return { status: 'UP', ...(pools ? { pools } : {}), ...missingIndexes };
    } catch (err) {
      outages.record('readiness', err);
      return reply.code(503).send({ status: 'DOWN' });
    }
  });
}
