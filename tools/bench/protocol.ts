/** What the bench and its server child (bench/server.ts) say to each other, and the ceiling routes. */

/** a trivial JSON reply: the cost of HTTP, routing and serialisation alone */
export const CEILING_JSON_PATH = '/bench/ceiling/json';
/** one primary-key SELECT on `entity` through the service's pool: `${CEILING_PK_PATH}/{id}` */
export const CEILING_PK_PATH = '/bench/ceiling/pk';

/** the response cache's counters (summed over the workers); all zero when the cache is off */
export interface CacheCounters {
  hits: number;
  redisHits: number;
  misses: number;
  redisErrors: number;
  entries: number;
  bytes: number;
}

export type ServerMessage =
  | { type: 'ready'; port: number; backend: string }
  | { type: 'rss'; peakBytes: number }
  | { type: 'cache'; counters: CacheCounters }
  | { type: 'error'; message: string };
export type ControlMessage = { type: 'rss-start' } | { type: 'rss-stop' } | { type: 'cache-stats' } | { type: 'stop' };
