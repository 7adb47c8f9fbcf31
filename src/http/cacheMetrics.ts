/**
 * The response cache's and its Redis connection's figures as metrics, read from the cache's own
 * counters (ResponseCache.snapshot) when scraped.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ResponseCacheStats } from './responseCache.js';

/**
 * Adds the cache metrics to `registry`; `read` gives the figures of the cache in use (null: none,
 * then the metrics are absent from the scrape).
 */
export function registerResponseCacheMetrics(registry: Registry, read: () => ResponseCacheStats | null): void {
  const counter = (name: string, help: string, value: (s: ResponseCacheStats) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        const stats = read();
        if (stats) this.inc(value(stats));
      },
    });
  const gauge = (name: string, help: string, value: (s: ResponseCacheStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        const stats = read();
        if (stats) this.set(value(stats));
      },
    });
  new Counter({
    name: 'lqs_response_cache_hits_total',
    help: 'Requests answered from the response cache, by where the answer was found (local: this process, redis: the shared cache)',
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const stats = read();
      if (!stats) return;
      this.labels('local').inc(stats.hits - stats.redisHits);
      this.labels('redis').inc(stats.redisHits);
    },
  });
  counter('lqs_response_cache_misses_total', 'Cacheable requests not found in the response cache', (s) => s.misses);
  counter('lqs_response_cache_stores_total', 'Answers stored in the response cache', (s) => s.stores);
  counter(
    'lqs_response_cache_evictions_total',
    "Answers dropped from this process's cache to make room (cache.maxBytes)",
    (s) => s.evictions,
  );
  gauge('lqs_response_cache_bytes', "Size of the answers in this process's cache, in bytes", (s) => s.bytes);
  gauge('lqs_response_cache_entries', "Answers in this process's cache", (s) => s.entries);
  counter('lqs_redis_errors_total', 'Failed Redis commands and connection errors of the shared response cache', (s) => s.redisErrors);
}
