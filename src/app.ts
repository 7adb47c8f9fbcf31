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
import { installResponseCache } from './http/responseCache.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerApiRoutes } from './routes/index.js';

export interface AppOptions {
  config: Config;
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** wall-clock milliseconds for the response cache's expiry (tests) */
  cacheNow?: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** resolves when no handler is running (or after `timeoutMs`); call after close(), before closing the database */
    handlersIdle(timeoutMs?: number): Promise<void>;
  }
}

/**
 * Counts running handlers, also those whose client has gone away (close() does not wait for those),
 * so that shutdown can let them finish before the database closes under them.
 */
function trackHandlers(app: FastifyInstance): void {
  const running = new WeakSet<object>();
  let active = 0;
  let waiters: (() => void)[] = [];
  app.addHook('preHandler', async (request) => {
    running.add(request);
    active++;
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    if (running.delete(request) && --active === 0) {
      for (const wake of waiters) wake();
      waiters = [];
    }
    return payload;
  });
  app.decorate('handlersIdle', async (timeoutMs = 10_000) => {
    if (active === 0) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), timeout]);
  });
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
  installResponseCache(app, config, options.cacheNow);

  trackHandlers(app);
  registerHealthRoutes(app, ctx);
  await registerDocsRoutes(app);
  registerApiRoutes(app, ctx);
  return app;
}
