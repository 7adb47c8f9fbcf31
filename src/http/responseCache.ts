/**
 * The response cache: successful GET responses of the API kept for their `cache-control` max-age,
 * in the process (LRU, bounded in bytes) and optionally shared by every process through Redis.
 *
 * A request is looked up in the pipeline's `preHandler` (after the limits, CORS and every other
 * `onRequest` step, which run for a cached answer too) and, on a hit, answered with the stored
 * payload and the route's `cache-control` and `link` (the other `onSend` steps set theirs again); on
 * a miss the response is stored in `onSend`, as a string, before ETag and compression change it.
 * Only JSON 200s of canonical URLs are stored (src/http/cacheKey.ts); entries read from Redis are
 * validated first (src/http/cacheEntry.ts).
 *
 * Redis is never on a request's critical path for longer than `cache.redis.timeoutMs`: commands
 * fail at once while it is disconnected (no offline queue), a failure or timeout makes the process
 * skip Redis for `cache.redis.backoffMs`, and a state change is logged once, not per request.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Redis, ReplyError } from 'ioredis';
import type { Config } from '../config.js';
import { CONTENT_TYPE, type CachedResponse, cachedHeaders, decodeSharedEntry, encodeSharedEntry, linkOf, maxAgeOf } from './cacheEntry.js';
import { requestKey } from './cacheKey.js';

export { type CachedResponse, maxAgeOf } from './cacheEntry.js';

/**
 * The UTF-8 bytes of `text` in an allocation of their own: `Buffer.from` places small strings in a
 * shared 8 KiB slab, which one cached slice would keep alive after the rest is evicted.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** The shared cache's Redis commands, each timed from its sending to its answer or failure. */
export type RedisCommandObserver = (command: 'get' | 'set', outcome: 'ok' | 'error', milliseconds: number) => void;

export interface ResponseCacheStats {
  hits: number;
  redisHits: number;
  misses: number;
  stores: number;
  redisErrors: number;
  /** entries read from Redis that were not in the shape the service writes: dropped, not served */
  malformed: number;
  /** stores Redis refused (e.g. OOM: it is full and evicts nothing) */
  redisStoresRefused: number;
  /** entries dropped to make room for newer ones (maxBytes) */
  evictions: number;
  bytes: number;
  entries: number;
}

export type CacheSettings = Config['cache'];

/**
 * What an entry costs the process beyond its key's and payload's bytes: the LRU's node and index
 * slots, the Map entry, the key string's header, the entry object, the Buffer object with its
 * backing store's bookkeeping and allocator rounding (measured by tools/bench/cacheMemory.ts).
 */
export const ENTRY_OVERHEAD_BYTES = 1150;

function entrySize(key: string, entry: CachedResponse): number {
  const link = entry.headers.link;
  return ENTRY_OVERHEAD_BYTES + key.length + entry.payload.length + (link === undefined ? 0 : link.length + 64);
}

export class ResponseCache {
  private readonly local: LRUCache<string, CachedResponse>;
  private readonly redis: Redis | null;
  private redisUsableAfter = 0;
  private redisDown = false;
  private storesRefused = false;
  private closed = false;
  /** changed by clear(): entries written to Redis before a reload in this process are not read again */
  private epoch = 0;
  readonly stats: ResponseCacheStats = {
    hits: 0,
    redisHits: 0,
    misses: 0,
    stores: 0,
    redisErrors: 0,
    malformed: 0,
    redisStoresRefused: 0,
    evictions: 0,
    bytes: 0,
    entries: 0,
  };

  constructor(
    private readonly settings: CacheSettings,
    private readonly log: FastifyBaseLogger,
    /** wall-clock milliseconds (injectable for tests of expiry) */
    private readonly now: () => number = Date.now,
    /** told of each Redis command's duration (the metrics' histogram) */
    private readonly observeRedis: RedisCommandObserver = () => {},
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
      let text: string | null = null;
      const sent = performance.now();
      try {
        text = await this.redis!.get(this.redisKey(key));
        this.observeRedis('get', 'ok', performance.now() - sent);
        if (this.redisDown) {
          // answering again after a timeout (the connection stayed up, so no 'ready' event)
          this.redisDown = false;
          this.log.info('response cache: redis reachable again');
        }
      } catch (err) {
        this.observeRedis('get', 'error', performance.now() - sent);
        this.markDown(err);
      }
      if (text !== null) {
        // what Redis holds is not trusted: a malformed entry is dropped and counted, and Redis
        // stays in use (it answered)
        const shared = decodeSharedEntry(text, this.now());
        if (shared === null) this.stats.malformed++;
        else if (shared !== 'expired') {
          const entry: CachedResponse = { headers: shared.headers, payload: ownBytes(shared.payload), expiresAt: shared.expiresAt };
          this.local.set(key, entry);
          this.stats.hits++;
          this.stats.redisHits++;
          return entry;
        }
      }
    }
    this.stats.misses++;
    return undefined;
  }

  /**
   * Keeps `payload` for `maxAgeSeconds`, with the headers of `headers` the cache restores
   * (`cache-control` and `link`; `content-type` is always the JSON one).
   */
  set(key: string, headers: Readonly<Record<string, string | string[]>>, payload: string, maxAgeSeconds: number): void {
    const cacheControl = headers['cache-control'];
    if (maxAgeSeconds <= 0 || typeof cacheControl !== 'string') return;
    const link = linkOf(headers);
    // a link the cache could not restore as it was sent: not kept
    if (link === undefined && headers.link !== undefined) return;
    const ttlMs = maxAgeSeconds * 1000;
    const expiresAt = this.now() + ttlMs;
    const kept = cachedHeaders(cacheControl, link);
    this.local.set(key, { headers: kept, payload: ownBytes(payload), expiresAt });
    this.stats.stores++;
    if (this.redisUsable()) {
      // not awaited: the response does not wait for Redis
      const sent = performance.now();
      this.redis!.set(this.redisKey(key), encodeSharedEntry(payload, expiresAt, kept), 'PX', ttlMs).then(
        () => {
          this.observeRedis('set', 'ok', performance.now() - sent);
          this.storeAccepted();
        },
        (err: unknown) => {
          this.observeRedis('set', 'error', performance.now() - sent);
          this.storeFailed(err);
        },
      );
    }
  }

  /**
   * A store that failed: Redis answered with an error (full: OOM with `maxmemory` and no eviction,
   * or read-only) is reachable, so it is logged once while it keeps refusing and lookups go on; any
   * other failure marks it down.
   */
  private storeFailed(err: unknown): void {
    if (!(err instanceof ReplyError)) {
      this.markDown(err);
      return;
    }
    this.stats.redisStoresRefused++;
    if (!this.storesRefused && !this.closed) {
      this.storesRefused = true;
      this.log.warn({ err }, 'response cache: redis refuses stores, entries are kept in the process only');
    }
  }

  private storeAccepted(): void {
    if (!this.storesRefused) return;
    this.storesRefused = false;
    this.log.info('response cache: redis accepts stores again');
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

/** What the pipeline keeps of a request the cache missed, until its response is stored. */
export interface CacheMiss {
  key: string;
  /** headers set before the handler (by onRequest steps and plugins): not part of the stored answer */
  before: Set<string>;
}

/**
 * The pipeline's preHandler step: answers a cached request (`'answered'`), or returns what
 * `storeResponse` needs for a request the cache can keep (null when it cannot).
 */
export async function serveCached(
  cache: ResponseCache,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CacheMiss | 'answered' | null> {
  const key = requestKey(request, config);
  if (key === null) return null;
  const hit = await cache.get(key);
  if (hit) {
    reply.code(200).headers(hit.headers).send(hit.payload);
    return 'answered';
  }
  return { key, before: new Set(Object.keys(reply.getHeaders())) };
}

/**
 * The pipeline's onSend step, after the headers steps and before ETag and compression: stores a 200
 * with a max-age, as the route's payload with the headers set since `serveCached`.
 */
export function storeResponse(cache: ResponseCache, miss: CacheMiss, reply: FastifyReply, payload: unknown): void {
  if (reply.statusCode !== 200 || typeof payload !== 'string' || reply.getHeader('content-encoding') !== undefined) return;
  if (reply.getHeader('content-type') !== CONTENT_TYPE) return;
  const maxAge = maxAgeOf(reply.getHeader('cache-control'));
  if (maxAge === null) return;
  const headers: Record<string, string> = {};
  for (const name of ['cache-control', 'link']) {
    const value = reply.getHeader(name);
    if (value !== undefined && !miss.before.has(name)) headers[name] = String(value);
  }
  cache.set(miss.key, headers, payload, maxAge);
}
