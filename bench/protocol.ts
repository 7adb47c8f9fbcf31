/** What the bench and its server child (bench/server.ts) say to each other, and the ceiling routes. */

/** a trivial JSON reply: the cost of HTTP, routing and serialisation alone */
export const CEILING_JSON_PATH = '/bench/ceiling/json';
/** one primary-key SELECT on `entity` through the service's pool: `${CEILING_PK_PATH}/{id}` */
export const CEILING_PK_PATH = '/bench/ceiling/pk';

export type ServerMessage = { type: 'ready'; port: number; backend: string } | { type: 'rss'; peakBytes: number } | { type: 'error'; message: string };
export type ControlMessage = { type: 'rss-start' } | { type: 'rss-stop' } | { type: 'stop' };
