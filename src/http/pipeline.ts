/**
 * The public API's request pipeline: one state per request and one hook per Fastify stage, each
 * calling its steps in the order written here. Steps throw ApiErrors; the error handler
 * (errorHandler.ts) renders them, and the rendered answer passes through onSend like any other.
 *
 *   onRequest   metrics start · in-flight slot (503 when none is left or closing) · URL limits (414, 400)
 *   (CORS)      @fastify/cors's own onRequest hook, registered after this one
 *   preHandler  handler started (metrics' shed count, slot kept past a client's leaving, shutdown drain) · response cache lookup
 *               (not for a path no route serves: its 404 or the upstream's answer is never cached)
 *   onSend      X-Request-Id · slot released, write deadline armed · common headers, Retry-After, Cache-Control
 *               (the upstream's own on its answers) ·
 *               response cache store · ETag and 304 · body size for metrics · shutdown drain
 *   (compress)  @fastify/compress's route-level onSend hook, which Fastify runs after this one
 *   onResponse  metrics sample
 *
 * The cache stores before ETag and compression: a cached answer is the routes' own payload, tagged
 * and encoded per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { cacheControlOf } from './cacheControl.js';
import { tagResponse } from './etag.js';
import { checkUrl, InFlightSlots, limitWriteTime } from './limits.js';
import { dbErrorKind, metricsPath, responseSample, type ServiceMetrics } from './metrics.js';
import { REQUEST_ID_HEADER } from './requestId.js';
import { type CacheMiss, type ResponseCache, serveCached, storeResponse } from './responseCache.js';

/** The headers every response of the public API carries, errors and early exits included. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };

/** Seconds a client is told to wait after a 503: every 503 of the public API carries it, written by the onSend step alone. */
const RETRY_AFTER_SECONDS = '1';

/** What the pipeline knows of a request, from onRequest to onResponse. */
export class RequestState {
  /** arrival, for the duration metric */
  readonly start = process.hrtime.bigint();
  /** holds one of the in-flight slots */
  holdsSlot = false;
  /** preHandler reached: the request will reach onSend whatever its client does */
  handlerStarted = false;
  /** counted by the shutdown drain (from preHandler to onSend) */
  draining = false;
  /** the body's size as serialised (before compression) */
  responseBytes = 0;
  /** a response the cache may keep, until onSend stores it */
  cacheMiss: CacheMiss | null = null;

  constructor(
    /** counted in the metrics (a scrape is not) */
    readonly counted: boolean,
  ) {}
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the pipeline's state of the request (null only before its onRequest step) */
    lifecycle: RequestState | null;
  }
  interface FastifyInstance {
    /** resolves when no handler is running (or after `timeoutMs`); call after close(), before closing the database */
    handlersIdle(timeoutMs?: number): Promise<void>;
  }
}

/**
 * Counts running handlers, also those whose client has gone away (close() does not wait for those),
 * so that shutdown can let them finish before the database closes under them.
 */
class HandlerDrain {
  private active = 0;
  private waiters: (() => void)[] = [];

  enter(state: RequestState): void {
    // a route's callNotFound() runs the preHandler step again
    if (state.draining) return;
    state.draining = true;
    this.active++;
  }

  leave(state: RequestState): void {
    if (!state.draining) return;
    state.draining = false;
    if (--this.active === 0) {
      for (const wake of this.waiters) wake();
      this.waiters = [];
    }
  }

  async idle(timeoutMs: number): Promise<void> {
    if (this.active === 0) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), timeout]);
  }
}

function byteLength(payload: unknown): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
}

export interface PipelineOptions {
  config: Config;
  metrics: ServiceMetrics;
  /** null when `cache.enabled` is false */
  cache: ResponseCache | null;
}

/** Installs the pipeline's hooks on `app`; call before registering plugins with hooks of their own (CORS) and the routes. */
export function installPipeline(app: FastifyInstance, { config, metrics, cache }: PipelineOptions): void {
  const slots = new InFlightSlots(config);
  const drain = new HandlerDrain();
  const scrapePath = metricsPath(config);
  const releaseSlot = (state: RequestState) => {
    if (!state.holdsSlot) return;
    state.holdsSlot = false;
    slots.release();
  };

  app.decorateRequest('lifecycle', null);
  app.decorate('handlersIdle', (timeoutMs = 10_000) => drain.idle(timeoutMs));

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const state = new RequestState(request.routeOptions.url !== scrapePath);
    request.lifecycle = state;
    if (state.counted) metrics.arrived();
    // 'close' comes for every response, also one whose client went away before it was sent; a
    // client gone before its handler started frees the slot at once, a running handler at onSend
    reply.raw.once('close', () => {
      if (state.counted) metrics.left();
      if (!state.handlerStarted) releaseSlot(state);
    });
    try {
      state.holdsSlot = slots.take(request);
      checkUrl(request.url, config.server);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });

  app.addHook('preHandler', async (request, reply) => {
    const state = request.lifecycle!;
    state.handlerStarted = true;
    drain.enter(state);
    // a path no route serves is answered 404 or by the upstream: nothing of the cache's
    if (cache === null || request.is404) {
      state.cacheMiss = null;
      return;
    }
    const found = await serveCached(cache, config, request, reply);
    if (found === 'answered') return reply;
    state.cacheMiss = found;
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = request.lifecycle;
    reply.header(REQUEST_ID_HEADER, request.id);
    // the slot counts computation: a client slow to read its response no longer holds one
    if (state) releaseSlot(state);
    limitWriteTime(request, reply, config.server.responseTimeoutMs);
    reply.headers(COMMON_HEADERS);
    const status = reply.statusCode;
    if (status === 503) reply.header('retry-after', RETRY_AFTER_SECONDS);
    else if (status >= 200 && status < 300 && request.url.startsWith('/api/v1/') && !request.is404) {
      reply.header('cache-control', cacheControlOf(request));
    }
    if (state?.cacheMiss) {
      storeResponse(cache!, state.cacheMiss, reply, payload);
      state.cacheMiss = null;
    }
    const sent = tagResponse(request, reply, payload);
    if (state) {
      state.responseBytes = byteLength(sent);
      drain.leave(state);
    }
    done(null, sent);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const state = request.lifecycle;
    if (state?.counted) metrics.finished(responseSample(request, reply, state));
    done();
  });

  app.addHook('onError', (_request, _reply, err, done) => {
    const kind = dbErrorKind(err);
    if (kind) metrics.dbError(kind);
    done();
  });

  app.addHook('preClose', (done) => {
    slots.close();
    done();
  });

  if (cache) {
    app.addHook('onClose', async () => {
      await cache.close();
    });
  }
}
