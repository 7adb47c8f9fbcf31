/**
 * Prometheus metrics (prom-client) at the reference's path, `/swagger/metrics/`, on the public
 * listener, under the reference's names, labels and buckets so that an operator's dashboards and
 * alerts read them unchanged, plus our own (`lqs_*`) and Node's process metrics beside them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ConfigError, type Config } from '../config.js';
import type { Db, PoolReport } from '../db/db.js';
import { isDatabaseUnavailable } from '../db/db.js';
import type { MissingIndex } from '../db/optionalIndexes.js';
import { basicAuthorized } from './basicAuth.js';
import { ApiError } from './errors.js';
import { registerReferenceProcessMetrics } from './referenceProcessMetrics.js';
import { registerResponseCacheMetrics } from './cacheMetrics.js';
import type { RedisCommandObserver, ResponseCacheStats } from './responseCache.js';

/** Node's process and runtime metrics (CPU, memory, event-loop lag, GC, handles; the reference's nodejs_process_* too): one set per process, started with the first app that serves metrics. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    registerReferenceProcessMetrics(processRegistry);
  }
  return processRegistry;
}

/** What a database failure counts as in `lqs_db_errors_total{kind}`. */
export type DbErrorKind = 'timeout' | 'unavailable' | 'idle_connection' | 'query';

export function dbErrorKind(err: unknown): DbErrorKind | null {
  const code = (err as { code?: unknown })?.code;
  if (code === '57014') return 'timeout';
  if (isDatabaseUnavailable(err)) return 'unavailable';
  // a SQLSTATE on an error that reached the error handler: a failed statement
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return 'query';
  return null;
}

/** Buckets of the Redis command durations: a lookup is abandoned at `cache.redis.timeoutMs` (50 ms by default). */
const REDIS_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = this.counter('api_all_request_total', 'Total number of requests');
  private readonly successes = this.counter('api_all_success_total', 'Total number of successful requests (status below 400)');
  private readonly errors = this.counter('api_all_errors_total', 'Total number of requests answered 400 or above');
  private readonly clientErrors = this.counter('api_all_client_error_total', 'Total number of requests answered 4xx');
  private readonly serverErrors = this.counter('api_all_server_error_total', 'Total number of requests answered 5xx');
  private readonly inProcessing = new Gauge({
    name: 'api_all_request_in_processing_total',
    help: 'Number of requests being processed',
    registers: [this.registry],
  });
  private readonly perRoute = new Counter({
    name: 'api_request_total',
    help: 'Number of requests by method, route and status code',
    labelNames: ['method', 'path', 'code'] as const,
    registers: [this.registry],
  });
  private readonly duration = this.histogram('api_request_duration_milliseconds', 'Request duration in milliseconds', [25, 100, 250, 500]);
  private readonly requestSize = this.histogram('api_request_size_bytes', 'Request size in bytes (Content-Length)', [100, 250, 500, 1000]);
  private readonly responseSize = this.histogram(
    'api_response_size_bytes',
    'Response body size in bytes, before compression',
    [100, 250, 500, 1000],
  );
  private readonly shed = this.counter('lqs_requests_shed_total', 'Requests answered 503 before reaching a handler (too many in flight)');
  private readonly connectionsRefused = new Counter({
    name: 'lqs_connections_refused_total',
    help: 'Connections of the public listener closed as accepted, beyond server.maxConnections (reason total) or server.maxConnectionsPerAddress (reason address)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private openConnections: () => number = () => 0;
  private readonly dbErrors = new Counter({
    name: 'lqs_db_errors_total',
    help: 'Database failures by kind: timeout (statement timeout), unavailable (connection failures), idle_connection (an idle pooled connection lost), query (other failed statements)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  constructor(db?: Db) {
    const stats = db?.poolStats?.bind(db);
    if (stats) {
      const gauge = (name: string, help: string, read: (s: { total: number; idle: number; waiting: number }) => number) =>
        new Gauge({
          name,
          help,
          registers: [this.registry],
          collect() {
            this.set(read(stats()));
          },
        });
      gauge('lqs_db_pool_connections', 'PostgreSQL connections open in the pool (with read replicas: in all pools)', (s) => s.total);
      gauge('lqs_db_pool_idle_connections', 'PostgreSQL connections open and idle in the pool', (s) => s.idle);
      gauge('lqs_db_pool_waiting_requests', 'Queries waiting for a pooled connection', (s) => s.waiting);
      new Counter({
        name: 'lqs_db_pool_waits_total',
        help: 'Requests that waited for a pooled connection (every one busy, or the server refusing more connections)',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(stats().waits ?? 0);
        },
      });
    }
    const pools = db?.pools?.bind(db);
    if (pools) {
      // over the processes of a cluster (src/cluster/): summed, but a pool is up where every process finds it up, and lags by the most any finds
      const perPool = (name: string, help: string, read: (p: PoolReport) => number | null, aggregator: 'sum' | 'min' | 'max' = 'sum') =>
        new Gauge({
          name,
          help,
          aggregator,
          labelNames: ['pool'] as const,
          registers: [this.registry],
          collect() {
            this.reset();
            for (const p of pools()) {
              const value = read(p);
              if (value !== null) this.labels(p.name).set(value);
            }
          },
        });
      perPool(
        'lqs_db_pool_up',
        'Whether the pool serves reads (1) or is out of the rotation (0: lagging or unreachable); by pool (primary, replica1, ...)',
        (p) => (p.state === 'up' ? 1 : 0),
        'min',
      );
      perPool(
        'lqs_db_replica_lag_milliseconds',
        'Replay lag of a read replica at its last check',
        (p) => (p.name === 'primary' ? null : p.lagMs),
        'max',
      );
      perPool('lqs_db_pool_queries', 'Statements answered by the pool since start-up', (p) => p.queries);
      perPool('lqs_db_pool_connections_by_pool', 'PostgreSQL connections open in the pool', (p) => p.total);
      perPool('lqs_db_pool_waiting_requests_by_pool', 'Queries waiting for a pooled connection', (p) => p.waiting);
    }
    for (const kind of ['timeout', 'unavailable', 'idle_connection', 'query'] as const) this.dbErrors.labels(kind).inc(0);
    for (const reason of ['total', 'address'] as const) this.connectionsRefused.labels(reason).inc(0);
    const connections = () => this.openConnections();
    new Gauge({
      name: 'lqs_connections_open',
      help: 'Open connections of the public listener',
      registers: [this.registry],
      collect() {
        this.set(connections());
      },
    });
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  private histogram(name: string, help: string, buckets: number[]): Histogram<'method' | 'path' | 'code'> {
    return new Histogram({ name, help, buckets, labelNames: ['method', 'path', 'code'] as const, registers: [this.registry] });
  }

  connectionRefused(reason: 'total' | 'address'): void {
    this.connectionsRefused.labels(reason).inc();
  }

  /** Reads the public listener's open connections at each scrape from now on. */
  observeConnections(read: () => number): void {
    this.openConnections = read;
  }

  dbError(kind: DbErrorKind): void {
    this.dbErrors.labels(kind).inc();
  }

  /** A request has arrived; `left` is to be called once when its connection is done with it (answered or abandoned). */
  arrived(): void {
    this.inProcessing.inc();
  }

  left(): void {
    this.inProcessing.dec();
  }

  finished(sample: {
    method: string;
    path: string;
    code: number;
    ms: number;
    requestBytes: number;
    responseBytes: number;
    shed: boolean;
  }): void {
    const labels = { method: sample.method, path: sample.path, code: String(sample.code) };
    this.requests.inc();
    if (sample.code < 400) this.successes.inc();
    else {
      this.errors.inc();
      if (sample.code < 500) this.clientErrors.inc();
      else this.serverErrors.inc();
    }
    if (sample.shed) this.shed.inc();
    this.perRoute.inc(labels);
    this.duration.observe(labels, sample.ms);
    this.requestSize.observe(labels, sample.requestBytes);
    this.responseSize.observe(labels, sample.responseBytes);
  }

  private responseCache: { snapshot(): ResponseCacheStats } | null = null;
  private responseCacheRegistered = false;

  /** Reports the figures of `cache` (the app's response cache; null: none) from now on. */
  observeResponseCache(cache: { snapshot(): ResponseCacheStats } | null): void {
    this.responseCache = cache;
    if (!cache || this.responseCacheRegistered) return;
    this.responseCacheRegistered = true;
    registerResponseCacheMetrics(this.registry, () => this.responseCache?.snapshot() ?? null);
  }

  private optionalIndexesRegistered = false;

  /**
   * `lqs_optional_index_missing{index}`: 1 for each optional index the database lacks, 0 for each
   * it holds (as found when the app was built), so that an alert can name what `lqs indexes` adds.
   */
  observeOptionalIndexes(all: readonly string[], missing: readonly MissingIndex[]): void {
    if (this.optionalIndexesRegistered) return;
    this.optionalIndexesRegistered = true;
    const gauge = new Gauge({
      name: 'lqs_optional_index_missing',
      help: 'Whether an optional index of the service is missing from the database (1: `lqs indexes` adds it) or present (0); the start-up warning and /health/readiness name the pages each slows',
      labelNames: ['index'] as const,
      aggregator: 'max',
      registers: [this.registry],
    });
    const absent = new Set(missing.map((i) => i.name));
    for (const name of all) gauge.labels(name).set(absent.has(name) ? 1 : 0);
  }

  private redisCommands: Histogram<'command' | 'outcome'> | null = null;

  /**
   * The observer of the shared response cache's Redis commands, for a cache with Redis: their
   * durations in `lqs_redis_command_duration_milliseconds` (absent from the scrape without Redis).
   */
  redisCommandObserver(): RedisCommandObserver {
    this.redisCommands ??= new Histogram({
      name: 'lqs_redis_command_duration_milliseconds',
      help: "Duration of the shared response cache's Redis commands, from sending to the answer or the failure",
      labelNames: ['command', 'outcome'] as const,
      buckets: REDIS_BUCKETS_MS,
      registers: [this.registry],
    });
    const histogram = this.redisCommands;
    return (command, outcome, milliseconds) => histogram.labels(command, outcome).observe(milliseconds);
  }

  /** These metrics and the process's. */
  registries(): Registry[] {
    return [this.registry, processMetrics()];
  }

  /** The exposition text: these metrics and the process's. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const merged = Registry.merge(this.registries());
    return { contentType: merged.contentType, text: await merged.metrics() };
  }
}

/** Fastify's route pattern in the API description's notation: `/api/v1/blocks/:hashOrNumber` → `/api/v1/blocks/{hashOrNumber}`. */
export function openApiPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The route label of requests that matched no route (one value, so that odd URLs add no series). */
export const UNMATCHED_PATH = '(unmatched)';

/** The path of the metrics route: `${metrics.config.uriPath}/metrics/`. */
export function metricsPath(config: Config): string {
  return `${config.metrics.config.uriPath.replace(/\/+$/, '')}/metrics/`;
}

/** The `path` label of each route pattern, converted once (the routes are a fixed few). */
const pathLabels = new Map<string, string>();

function pathLabelOf(route: string): string {
  let label = pathLabels.get(route);
  if (label === undefined) {
    label = openApiPath(route);
    pathLabels.set(route, label);
  }
  return label;
}

/** A request's response as the metrics count it. */
export function responseSample(
  request: FastifyRequest,
  reply: FastifyReply,
  state: { start: bigint; responseBytes: number; handlerStarted: boolean },
): Parameters<ServiceMetrics['finished']>[0] {
  const route = request.routeOptions.url;
  const code = reply.statusCode;
  return {
    method: request.method,
    path: route ? pathLabelOf(route) : UNMATCHED_PATH,
    code,
    ms: Number(process.hrtime.bigint() - state.start) / 1e6,
    requestBytes: Number(request.headers['content-length'] ?? 0) || 0,
    responseBytes: state.responseBytes,
    shed: code === 503 && !state.handlerStarted,
  };
}

/** Serves the scrape at `metricsPath(config)` when metrics are enabled; checks the scrape's credentials settings. */
export function registerMetricsRoute(app: FastifyInstance, config: Config, metrics: ServiceMetrics): void {
  if (!config.metrics.enabled) return;
  const auth = config.metrics.config;
  if (auth.authentication && (!auth.username || !auth.password)) {
    throw new ConfigError('metrics.config.authentication is on but metrics.config.username or metrics.config.password is empty: set both');
  }
  // started now, not at the first scrape: process CPU and event-loop delay count from here
  processMetrics();
  app.get(metricsPath(config), async (request: FastifyRequest, reply: FastifyReply) => {
    if (auth.authentication && !basicAuthorized(request.headers.authorization, auth.username, auth.password)) {
      throw new ApiError(401, ['Unauthorized'], { 'www-authenticate': 'Basic realm="metrics"' });
    }
    const { contentType, text } = await metrics.scrape();
    return reply.type(contentType).header('cache-control', 'no-store').send(text);
  });
}
