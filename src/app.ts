/** Builds the public API's Fastify app from a context; listening is left to the caller (tests inject). */
import Fastify, { type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/db.js';
import { clientErrorHandler, frameworkErrorHandler } from './http/clientErrors.js';
import { installErrorHandling, RETRY_AFTER_SECONDS } from './http/errorHandler.js';
import { OutageLog } from './http/outageLog.js';
import { installLimits } from './http/limits.js';
import { installEtag } from './http/etag.js';
import { installMetrics, ServiceMetrics } from './http/metrics.js';
import { installRequestIds, requestIdOf, RequestLogController } from './http/requestId.js';
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
  /** where database failures are counted (shared with the pool's); one of the app's own by default */
  outages?: OutageLog;
  /** the process's metrics (server.ts shares them with the database's error callback); built here when absent */
  metrics?: ServiceMetrics;
  /** wall-clock milliseconds for the response cache's expiry (tests) */
  cacheNow?: () => number;
}

/** How often the server looks for connections past their request or headers deadline. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** The headers every response of the public API carries, errors and early exits included. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };

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
    genReqId: requestIdOf,
    logController: new RequestLogController(),
    routerOptions: {
      querystringParser: (text: string) => parseQueryString(text, config.query.maxRepeatedQueryParameters) as never,
      ignoreTrailingSlash: true,
      // long path values reach the routes, which reject them with their own 400
      maxParamLength: config.server.maxUrlLength,
    },
    frameworkErrors: frameworkErrorHandler({ maxUrlLength: config.server.maxUrlLength, headers: COMMON_HEADERS }) as never,
    clientErrorHandler: clientErrorHandler({ maxHeaderBytes: config.server.maxHeaderBytes, headers: COMMON_HEADERS }),
    requestTimeout: config.server.requestTimeoutMs,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    // Node checks deadlines every 30 s by default and gives headers 60 s: a slow-header client would be
    // cut after up to a minute instead of server.requestTimeoutMs
    http: {
      maxHeaderSize: config.server.maxHeaderBytes,
      requestTimeout: config.server.requestTimeoutMs,
      headersTimeout: config.server.requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    // answered by installLimits, in the error envelope
    return503OnClosing: false,
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
  const outages = options.outages ?? new OutageLog(app.log);
  const metrics = options.metrics ?? new ServiceMetrics(options.db);
  const measureBody = installMetrics(app, config, metrics);
  installRequestIds(app);
  installErrorHandling(app, outages);
  installLimits(app, config);
  // an OPTIONS request without the preflight headers is answered like a preflight (204), not with
  // the plugin's plain-text 400
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'], strictPreflight: false });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(COMMON_HEADERS);
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', RETRY_AFTER_SECONDS);
    if (reply.statusCode >= 200 && reply.statusCode < 300 && request.url.startsWith('/api/v1/')) {
      reply.header('cache-control', request.routeOptions.config.cacheControl ?? CacheControl.default);
    }
    return payload;
  });
  // before ETag and compression: a cached answer is the routes' own payload, tagged and encoded per request
  metrics.observeResponseCache(installResponseCache(app, config, options.cacheNow));
  installEtag(app);
  measureBody();
  if (config.response.compression) {
    // every body up to 1 MiB is compressed in one synchronous call: the plugin's default on two
    // cores (8 KiB) sends a 20 KB page through a zlib stream, which costs the service twice the
    // CPU of the call (bench: gzip ×2.15 → ×1.51 of the uncompressed request's CPU for accounts)
    await app.register(compress, { encodings: ['br', 'gzip'], threshold: config.response.compressionThreshold, syncThreshold: 1 << 20 });
  }

  trackHandlers(app);
  registerHealthRoutes(app, ctx, outages);
  await registerDocsRoutes(app, config);
  registerApiRoutes(app, ctx);
  return app;
}
