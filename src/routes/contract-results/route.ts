/** GET /api/v1/contracts/results/{transactionIdOrHash} and /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

export function registerContractResultRoutes(app: FastifyInstance, ctx: AppContext): void {
  void app;
  void ctx;
}
