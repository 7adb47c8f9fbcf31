/**
 * The response cache: successful GET responses of the API kept for their `cache-control` max-age,
 * in the process (LRU, bounded in bytes) and optionally shared by every process through Redis.
 *
 * A request is looked up in `preHandler` (after the limits, CORS and any other `onRequest` hook,
 * which run for a cached answer too) and, on a hit, answered with the stored payload and the
 * headers the route and the `onSend` hooks before this one produced; on a miss the response is
 * stored in `onSend`, as a string, before any hook registered after this one (compression, ETag)
 * changes it. Only 200s are stored. The key is the method, the path as sent and the parsed query
 * in the caller's order (what the routes see: keys lower-cased, values decoded); it is not sorted,
 * as `links.next` repeats the caller's order of parameters. No request header changes a response
 * today; the Host header joins the key if `response.includeHostInLink` is set.
 *
 * Redis is never on a request's critical path for longer than `cache.redis.timeoutMs`: commands
 * fail at once while it is disconnected (no offline queue), a failure or timeout makes the process
 * skip Redis for `cache.redis.backoffMs`, and a state change is logged once, not per request.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { queryOf } from './query.js';

export interface CachedResponse {
  /** headers the route and the earlier onSend hooks set (not those of onRequest hooks) */
  headers: Record<string, string | string[]>;
  /**
   * The payload's UTF-8 bytes: outside the JS heap and exactly sized. Kept as the serialiser's
   * string, 64 MiB of answers grew the process by about 200 MB under the soak.
   */
  payload: Buffer;
  /** wall-clock ms after which the entry is not served */
  expiresAt: number;
}

/**
 * The UTF-8 bytes of `text` in an allocation of their own: `Buffer.from` places small strings in a
 * shared 8 KiB slab, which one cached slice would keep alive after the rest is evicted.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** An entry as Redis holds it (JSON). */
interface SharedResponse {
  headers: CachedResponse['headers'];
  payload: string;
  expiresAt: number;
}

export interface ResponseCacheStats {
  hits: number;
  redisHits: number;
  misses: number;
  stores: number;
  redisErrors: number;
  /** entries dropped to make room for newer ones (maxBytes) */
  evictions: number;
  bytes: number;
  entries: number;
}

export type CacheSettings = Config['cache'];

const MAX_AGE = /(?:^|,)\s*max-age=(\d+)/i;

/** The max-age of a `cache-control` value in seconds, or null (no-store, private or none). */
export function maxAgeOf(cacheControl: unknown): number | null {
  if (typeof cacheControl !== 'string' || /no-store|no-cache|private/i.test(cacheControl)) return null;
  const m = MAX_AGE.exec(cacheControl);
  return m ? Number(m[1]) : null;
}

function entrySize(key: string, entry: CachedResponse): number {
  let n = key.length + entry.payload.length + 64;
  for (const [k, v] of Object.entries(entry.headers)) n += k.length + (Array.isArray(v) ? v.join('').length : v.length) + 16;
  return n;
}

export class ResponseCache {
  private readonly local: LRUCache<string, CachedResponse>;
  private readonly redis: Redis | null;
  private redisUsableAfter = 0;
  private redisDown = false;
  private closed = false;
  /** changed by clear(): entries written to Redis before a reload in this process are not read again */
  private epoch = 0;
  readonly stats: ResponseCacheStats = {
    hits: 0,
    redisHits: 0,
    misses: 0,
    stores: 0,
    redisErrors: 0,
    evictions: 0,
    bytes: 0,
    entries: 0,
  };

  constructor(
    private readonly settings: CacheSettings,
    private readonly log: FastifyBaseLogger,
    /** wall-clock milliseconds (injectable for tests of expiry) */
    private readonly now: () => number = Date.now,
  ) {
    this.local = new LRUCache<string, CachedResponse>({
      maxSize: Math.max(1, settings.maxBytes),
      maxEntrySize: Math.max(1, Math.min(settings.maxEntryBytes, settings.maxBytes)),
      sizeCalculation: (value, key) => entrySize(key, value),
      dispose: (_value, _key, reason) => {
        if (reason === 'evict') this.stats.evictions++;
      },
    });
    this.redis = settings.redis.url ? this.connect(settings.redis) : null;
  }

  private connect(r: CacheSettings['redis']): Redis {
    const client = new Redis(r.url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: r.connectTimeoutMs,
      commandTimeout: r.timeoutMs,
      enableReadyCheck: false,
      // reconnect forever, at most every backoffMs (at least every 5 s)
      retryStrategy: (times) => Math.min(times * 100, Math.max(r.backoffMs, 100), 5_000),
    });
    client.on('error', (err: Error) => this.markDown(err));
    client.on('ready', () => {
      if (this.redisDown) this.log.info('response cache: redis reachable again');
      this.redisDown = false;
    });
    return client;
  }

  private markDown(err: unknown): void {
    if (this.closed) return;
    this.stats.redisErrors++;
    this.redisUsableAfter = this.now() + this.settings.redis.backoffMs;
    if (!this.redisDown) {
      this.redisDown = true;
      this.log.warn({ err }, 'response cache: redis unavailable, answering from the database');
    }
  }

  private redisUsable(): boolean {
    return this.redis !== null && this.redis.status === 'ready' && this.now() >= this.redisUsableAfter;
  }

  private redisKey(key: string): string {
    return `${this.settings.redis.keyPrefix}${this.epoch === 0 ? '' : `${this.epoch}:`}${key}`;
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const now = this.now();
    const entry = this.local.get(key);
    if (entry) {
      if (entry.expiresAt > now) {
        this.stats.hits++;
        return entry;
      }
      this.local.delete(key);
    }
    if (this.redisUsable()) {
      try {
        const text = await this.redis!.get(this.redisKey(key));
        if (this.redisDown) {
          // answering again after a timeout (the connection stayed up, so no 'ready' event)
          this.redisDown = false;
          this.log.info('response cache: redis reachable again');
        }
        if (text !== null) {
          const shared = JSON.parse(text) as SharedResponse;
          if (shared.expiresAt > this.now()) {
            const entry: CachedResponse = { ...shared, payload: ownBytes(shared.payload) };
            this.local.set(key, entry);
            this.stats.hits++;
            this.stats.redisHits++;
            return entry;
          }
        }
      } catch (err) {
        this.markDown(err);
      }
    }
    this.stats.misses++;
    return undefined;
  }

  set(key: string, headers: CachedResponse['headers'], payload: string, maxAgeSeconds: number): void {
    if (maxAgeSeconds <= 0) return;
    const ttlMs = maxAgeSeconds * 1000;
    const expiresAt = this.now() + ttlMs;
    this.local.set(key, { headers, payload: ownBytes(payload), expiresAt });
    this.stats.stores++;
    if (this.redisUsable()) {
      const shared: SharedResponse = { headers, payload, expiresAt };
      // not awaited: the response does not wait for Redis
      this.redis!.set(this.redisKey(key), JSON.stringify(shared), 'PX', ttlMs).catch((err: unknown) => this.markDown(err));
    }
  }

  /** Forgets every entry (a data reload): the local ones, and those in Redis for this process. */
  clear(): void {
    this.local.clear();
    this.epoch++;
  }

  snapshot(): ResponseCacheStats {
    return { ...this.stats, bytes: this.local.calculatedSize, entries: this.local.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (!this.redis) return;
    this.redis.removeAllListeners('error');
    this.redis.on('error', () => {});
    this.redis.disconnect(false);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the response cache, null when `cache.enabled` is false */
    responseCache: ResponseCache | null;
  }
}

function requestKey(request: FastifyRequest, config: Config): string | null {
  if (request.method !== 'GET') return null;
  const url = request.url;
  if (!url.startsWith('/api/v1/') || url.startsWith('/api/v1/docs')) return null;
  const query = queryOf(request);
  if (query.error) return null;
  const path = url.split('?', 1)[0]!;
  const entries = JSON.stringify([...query.entries]);
  const host = config.response.includeHostInLink ? ` ${request.headers.host ?? ''}` : '';
  return `GET ${path}${host} ${entries}`;
}

/**
 * Registers the cache's hooks: serve in preHandler, store in onSend. Call after the hook that sets
 * `cache-control` and before any hook that compresses or otherwise rewrites the payload.
 */
export function installResponseCache(app: FastifyInstance, config: Config, now?: () => number): ResponseCache | null {
  const cache = config.cache.enabled ? new ResponseCache(config.cache, app.log, now) : null;
  app.decorate('responseCache', cache);
  if (!cache) return null;
  const keys = new WeakMap<FastifyRequest, { key: string; before: Set<string> }>();

  app.addHook('preHandler', async (request, reply) => {
    const key = requestKey(request, config);
    if (key === null) return;
    const hit = await cache.get(key);
    if (hit) {
      reply.code(200).headers(hit.headers);
      return reply.send(hit.payload);
    }
    keys.set(request, { key, before: new Set(Object.keys(reply.getHeaders())) });
  });

  app.addHook('onSend', async (request, reply: FastifyReply, payload) => {
    const pending = keys.get(request);
    if (!pending || reply.statusCode !== 200) return payload;
    keys.delete(request);
    if (typeof payload !== 'string' || reply.getHeader('content-encoding') !== undefined) return payload;
    const maxAge = maxAgeOf(reply.getHeader('cache-control'));
    if (maxAge === null) return payload;
    const headers: CachedResponse['headers'] = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (pending.before.has(name) || value === undefined || name === 'content-length') continue;
      headers[name] = Array.isArray(value) ? value.map(String) : String(value);
    }
    cache.set(pending.key, headers, payload, maxAge);
    return payload;
  });

  app.addHook('onClose', async () => {
    await cache.close();
  });
  return cache;
}
