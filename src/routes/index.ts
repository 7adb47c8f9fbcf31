import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerAccountRoutes } from './accounts/route.js';
import { registerBlockRoutes } from './blocks/route.js';
import { registerContractResultRoutes } from './contract-results/route.js';
import { registerNftRoutes } from './nfts/route.js';

/** Registers the resource routes under /api/v1. */
export function registerApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerAccountRoutes(app, ctx);
  registerNftRoutes(app, ctx);
  registerBlockRoutes(app, ctx);
  registerContractResultRoutes(app, ctx);
}
