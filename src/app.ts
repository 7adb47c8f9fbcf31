/** Builds the public API's Fastify app from a context; listening is left to the caller (tests inject). */
import Fastify, { type FastifyInstance, type FastifyBaseLogger, type FastifyReply } from 'fastify';
import cors from '@fastify/cors';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/db.js';
import { errorBody } from './http/errors.js';
import { installErrorHandling } from './http/errorHandler.js';
import { installLimits } from './http/limits.js';
import { componentsSchema } from './http/openapi.js';
import { parseQueryString } from './http/query.js';
import { CacheControl } from './http/cache.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerApiRoutes } from './routes/index.js';

export interface AppOptions {
  config: Config;
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    routerOptions: {
      querystringParser: (text: string) => parseQueryString(text, config.query.maxRepeatedQueryParameters) as never,
      ignoreTrailingSlash: true,
      // long path values reach the routes, which reject them with their own 400
      maxParamLength: config.server.maxUrlLength,
    },
    frameworkErrors: (error, _request, reply) => {
      (reply as FastifyReply).code(error.statusCode ?? 400).send(errorBody([error.message]));
    },
    requestTimeout: config.server.requestTimeoutMs,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    http: { maxHeaderSize: config.server.maxHeaderBytes },
    bodyLimit: 64 * 1024,
  });
  const ctx: AppContext = {
    config,
    startup: { defaultLimit: config.response.limit.default },
    db: options.db,
    clock: options.clock,
    log: app.log,
  };

  app.addSchema(componentsSchema());
  installErrorHandling(app);
  installLimits(app, config);
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'] });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (reply.statusCode >= 200 && reply.statusCode < 300 && request.url.startsWith('/api/v1/')) {
      reply.header('cache-control', request.routeOptions.config.cacheControl ?? CacheControl.default);
    }
    return payload;
  });

  registerHealthRoutes(app, ctx);
  await registerDocsRoutes(app);
  registerApiRoutes(app, ctx);
  return app;
}
