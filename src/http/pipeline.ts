/**
 * The public API's request pipeline: one state per request and one hook per Fastify stage, each
 * calling its steps in the order written here. Steps throw ApiErrors; the error handler
 * (errorHandler.ts) renders them, and the rendered answer passes through onSend like any other.
 *
 *   onRequest   metrics start · Host and Expect (400, 417) · in-flight slot (503 when none is left or closing) ·
 *               URL limits (414, 400)
 *   (CORS)      @fastify/cors's own onRequest hook, registered after this one
 *   preHandler  handler started (metrics' shed count, slot kept past a client's leaving, shutdown drain) · response cache lookup
 *               (not for a path no route serves: its 404 or the upstream's answer is never cached)
 *   onSend      X-Request-Id · slot released, write deadline armed · common headers, Retry-After, Cache-Control
 *               and the configured response.headers (responseHeaders.ts; the upstream's own on its answers), Vary ·
 *               response cache store · ETag and 304 · body size for metrics · shutdown drain
 *   (compress)  @fastify/compress's route-level onSend hook, which Fastify runs after this one
 *   onResponse  metrics sample
 *
 * The cache stores before ETag and compression: a cached answer is the routes' own payload, tagged
 * and encoded per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { tagResponse } from './etag.js';
import { checkUrl, InFlightSlots, limitWriteTime } from './limits.js';
import { dbErrorKind, metricsPath, responseSample, type ServiceMetrics } from './metrics.js';
import { REQUEST_ID_HEADER } from './requestId.js';
import { checkExpectation, checkHost } from './requestTarget.js';
import { ResponseHeaders } from './responseHeaders.js';
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
  /** the write deadline armed at onSend, cleared when the response is done (the same 'close' listener) */
  writeDeadline: NodeJS.Timeout | null = null;

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

/** The media types @fastify/compress compresses (JSON, text, XML, JavaScript); a body without one is the routes' JSON. */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/]json(?:;|$)|[+/]xml(?:;|$)|javascript|yaml/;
function compressible(contentType: unknown): boolean {
  return contentType === undefined || (typeof contentType === 'string' && COMPRESSIBLE.test(contentType));
}

function byteLength(payload: unknown): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
}

/**
 * Steps that the bench's pipeline measurement (tools/bench/pipeline.ts) turns off, one at a time, to
 * price each; `serve` runs every one. `request-ids` also stands for the request log (buildApp).
 */
export const PIPELINE_STEPS = ['metrics', 'etag', 'request-ids', 'cache', 'limits'] as const;
export type PipelineStep = (typeof PIPELINE_STEPS)[number];

export interface PipelineOptions {
  config: Config;
  metrics: ServiceMetrics;
  /** null when `cache.enabled` is false */
  cache: ResponseCache | null;
  /** steps left out (the bench's measurement only) */
  off?: ReadonlySet<PipelineStep>;
}

/** Installs the pipeline's hooks on `app`; call before registering plugins with hooks of their own (CORS) and the routes. */
export function installPipeline(app: FastifyInstance, { config, metrics, cache: givenCache, off = new Set() }: PipelineOptions): void {
  const slots = new InFlightSlots(config);
  const counting = !off.has('metrics');
  const tagging = !off.has('etag');
  const ids = !off.has('request-ids');
  const limits = !off.has('limits');
  const cache = off.has('cache') ? null : givenCache;
  const drain = new HandlerDrain();
  const scrapePath = metricsPath(config);
  const successHeaders = new ResponseHeaders(config.response.headers);
  const compression = config.response.compression;
  const releaseSlot = (state: RequestState) => {
    if (!state.holdsSlot) return;
    state.holdsSlot = false;
    slots.release();
  };

  app.decorateRequest('lifecycle', null);
  app.decorate('handlersIdle', (timeoutMs = 10_000) => drain.idle(timeoutMs));

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const state = new RequestState(counting && request.routeOptions.url !== scrapePath);
    request.lifecycle = state;
    if (state.counted) metrics.arrived();
    // 'close' comes for every response, also one whose client went away before it was sent; a
    // client gone before its handler started frees the slot at once, a running handler at onSend
    reply.raw.once('close', () => {
      if (state.writeDeadline) clearTimeout(state.writeDeadline);
      if (state.counted) metrics.left();
      if (!state.handlerStarted) releaseSlot(state);
    });
    if (!limits) {
      done();
      return;
    }
    try {
      checkHost(request.raw);
      checkExpectation(request.raw);
      state.holdsSlot = slots.take(request);
      checkUrl(request.url, config.server);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });

  const handlerStarts = (state: RequestState) => {
    state.handlerStarted = true;
    drain.enter(state);
  };
  // without a cache nothing is awaited: a callback hook spares each request a promise
  if (cache === null) {
    app.addHook('preHandler', (request, _reply, done) => {
      handlerStarts(request.lifecycle!);
      done();
    });
  } else {
    app.addHook('preHandler', async (request, reply) => {
      const state = request.lifecycle!;
      handlerStarts(state);
      // a path no route serves is answered 404 or by the upstream: nothing of the cache's
      if (request.is404) return;
      const found = await serveCached(cache, config, request, reply);
      if (found === 'answered') return reply;
      state.cacheMiss = found;
    });
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = request.lifecycle;
    if (ids) reply.header(REQUEST_ID_HEADER, request.id);
    // the slot counts computation: a client slow to read its response no longer holds one
    if (state) releaseSlot(state);
    if (limits) {
      const deadline = limitWriteTime(request, reply, config.server.responseTimeoutMs);
      if (state) state.writeDeadline = deadline;
      else if (deadline) reply.raw.once('close', () => clearTimeout(deadline));
    }
    reply.headers(COMMON_HEADERS);
    const status = reply.statusCode;
    if (status === 503) reply.header('retry-after', RETRY_AFTER_SECONDS);
    else if (status >= 200 && status < 300 && request.url.startsWith('/api/v1/') && !request.is404) {
      reply.headers(successHeaders.of(request));
    }
    // every body that may be compressed varies with Accept-Encoding, also one below the threshold
    // or from the cache: a shared cache must not hand a gzip body to a client that did not ask
    if (status === 200 && compression && state?.counted && compressible(reply.getHeader('content-type'))) {
      const vary = reply.getHeader('vary');
      if (vary === undefined) reply.header('vary', 'accept-encoding');
      else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${vary}, accept-encoding`);
    }
    if (state?.cacheMiss) {
      storeResponse(cache!, state.cacheMiss, reply, payload);
      state.cacheMiss = null;
    }
    const sent = tagging ? tagResponse(request, reply, payload) : payload;
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
