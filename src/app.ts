/** Builds the public API's Fastify app from a context; listening is left to the caller (tests inject). */
import Fastify, { type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Db } from './db/db.js';
import { optionalIndexes, type MissingIndex } from './db/optionalIndexes.js';
import { clientErrorHandler, connectRefusal, frameworkErrorHandler } from './http/clientErrors.js';
import { ConnectionCaps, ConnectionRefusalLog } from './http/connectionCaps.js';
import { installErrorHandling } from './http/errorHandler.js';
import { forwardToUpstream } from './http/upstream.js';
import { OutageLog } from './http/outageLog.js';
import { registerMetricsRoute, ServiceMetrics } from './http/metrics.js';
import { COMMON_HEADERS, installPipeline, type PipelineStep } from './http/pipeline.js';
import { requestIdOf } from './http/requestId.js';
import { RequestLogController } from './http/requestLog.js';
import { componentsSchema } from './http/openapi.js';
import { parseQueryString } from './http/query.js';
import { originForm } from './http/requestTarget.js';
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
  /** the interval of the refused connections' summary lines (tests) */
  connectionLogIntervalMs?: number;
  /** pipeline steps left out: the bench's measurement of their cost only (tools/bench/pipeline.ts) */
  pipelineOff?: ReadonlySet<PipelineStep>;
  /** the optional indexes the database lacks (serve finds them at start-up); none when absent, as on the project's schema */
  missingIndexes?: readonly MissingIndex[];
}

/** How often the server looks for connections past their request or headers deadline. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const ids = !options.pipelineOff?.has('request-ids');
  const app = Fastify({
    loggerInstance: options.logger,
    ...(ids ? { genReqId: requestIdOf, logController: new RequestLogController(config.log.sampleRate) } : { disableRequestLogging: true }),
    routerOptions: {
      querystringParser: (text: string) => parseQueryString(text, config.query.maxRepeatedQueryParameters) as never,
      ignoreTrailingSlash: true,
      // long path values reach the routes, which reject them with their own 400
      maxParamLength: config.server.maxUrlLength,
    },
    // an absolute-form target is served as its path: links and the response cache never see its scheme and host
    rewriteUrl: (request) => originForm(request.url ?? '/'),
    // HEAD is registered with every GET (the onRoute hook below), so that it runs the same hooks,
    // compression included: Fastify's own HEAD routes drop the body before compression
    exposeHeadRoutes: false,
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
      // a missing Host is refused by the pipeline, in the error envelope (Node's own 400 is bare)
      requireHostHeader: false,
    },
    // answered by the pipeline's in-flight step, in the error envelope
    return503OnClosing: false,
    bodyLimit: 64 * 1024,
  });
  const missingIndexes = options.missingIndexes ?? [];
  const ctx: AppContext = {
    config,
    db: options.db,
    clock: options.clock,
    log: app.log,
    missingIndexes,
  };

  // Node answers an unknown Expect with a bare 417 unless told otherwise: the pipeline answers it
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  app.server.on('connect', connectRefusal(COMMON_HEADERS));
  app.addHook('onRoute', (route) => {
    if (route.method === 'GET') route.method = ['GET', 'HEAD'];
  });
  app.addSchema(componentsSchema());
  const outages = options.outages ?? new OutageLog(app.log);
  const metrics = options.metrics ?? new ServiceMetrics(options.db);
  const cache = config.cache.enabled
    ? new ResponseCache(config.cache, app.log, options.cacheNow, config.cache.redis.url ? metrics.redisCommandObserver() : undefined)
    : null;
  app.decorate('responseCache', cache);
  metrics.observeResponseCache(cache);
  metrics.observeOptionalIndexes(
    optionalIndexes().map((i) => i.name),
    missingIndexes,
  );
  installErrorHandling(app, outages, config.upstream.url ? await forwardToUpstream(app, config.upstream) : undefined);
  const limits = { maxConnections: config.server.maxConnections, maxConnectionsPerAddress: config.server.maxConnectionsPerAddress };
  const refusals = new ConnectionRefusalLog(app.log, limits, options.connectionLogIntervalMs);
  const caps = new ConnectionCaps(limits, (reason, address, open) => {
    metrics.connectionRefused(reason);
    refusals.record(reason, address, open);
  });
  caps.install(app.server);
  metrics.observeConnections(() => caps.openConnections);
  app.addHook('onClose', (_instance, done) => {
    refusals.close();
    done();
  });
  installPipeline(app, { config, metrics, cache, off: options.pipelineOff });
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
  await registerDocsRoutes(app);
  registerApiRoutes(app, ctx);
  return app;
}
