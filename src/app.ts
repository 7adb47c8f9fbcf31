/** Builds the public API's Fastify app from a context; listening is left to the caller (tests inject). */
import Fastify, { type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/db.js';
import { clientErrorHandler, frameworkErrorHandler } from './http/clientErrors.js';
import { installErrorHandling } from './http/errorHandler.js';
import { forwardToUpstream } from './http/upstream.js';
import { OutageLog } from './http/outageLog.js';
import { registerMetricsRoute, ServiceMetrics } from './http/metrics.js';
import { COMMON_HEADERS, installPipeline } from './http/pipeline.js';
import { requestIdOf } from './http/requestId.js';
import { RequestLogController } from './http/requestLog.js';
import { componentsSchema } from './http/openapi.js';
import { parseQueryString } from './http/query.js';
import { ResponseCache } from './http/responseCache.js';
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
    // answered by the pipeline's in-flight step, in the error envelope
    return503OnClosing: false,
    bodyLimit: 64 * 1024,
  });
  const ctx: AppContext = {
    config,
    db: options.db,
    clock: options.clock,
    log: app.log,
  };

  app.addSchema(componentsSchema());
  const outages = options.outages ?? new OutageLog(app.log);
  const metrics = options.metrics ?? new ServiceMetrics(options.db);
  const cache = config.cache.enabled
    ? new ResponseCache(config.cache, app.log, options.cacheNow, config.cache.redis.url ? metrics.redisCommandObserver() : undefined)
    : null;
  app.decorate('responseCache', cache);
  metrics.observeResponseCache(cache);
  installErrorHandling(app, outages, config.upstream.url ? await forwardToUpstream(app, config.upstream) : undefined);
  installPipeline(app, { config, metrics, cache });
  // an OPTIONS request without the preflight headers is answered like a preflight (204), not with
  // the plugin's plain-text 400
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD'], strictPreflight: false });
  // before the compression plugin, which applies to the routes registered after it: scrapes are sent as they are
  registerMetricsRoute(app, config, metrics);
  if (config.response.compression) {
    // every body up to 1 MiB is compressed in one synchronous call: above the plugin's default
    // (8 KiB) a page goes through a zlib stream, which costs far more CPU (tools/bench/README.md)
    await app.register(compress, { encodings: ['br', 'gzip'], threshold: config.response.compressionThreshold, syncThreshold: 1 << 20 });
  }

  registerHealthRoutes(app, ctx, outages);
  await registerDocsRoutes(app, config);
  registerApiRoutes(app, ctx);
  return app;
}
