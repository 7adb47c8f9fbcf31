/** GET /api/v1/accounts/{idOrAliasOrEvmAddress}/nfts. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

export function registerNftRoutes(app: FastifyInstance, ctx: AppContext): void {
  void app;
  void ctx;
}
