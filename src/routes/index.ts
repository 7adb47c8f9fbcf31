import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerBlockRoutes } from './blocks/route.js';

/** Registers the resource routes under /api/v1. */
export function registerApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerBlockRoutes(app, ctx);
}
