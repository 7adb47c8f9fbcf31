/** GET /api/v1/accounts/{idOrAliasOrEvmAddress}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext): void {
  void app;
  void ctx;
}
