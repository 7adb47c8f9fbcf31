/** The messages between the cluster primary of `serve` and its workers. */

/** worker → primary once it listens (the supervisor waits for `type: 'ready'`) */
export interface WorkerReady {
  type: 'ready';
  /** the public listener's URL */
  url: string;
  backend: string;
  /** paths that answer on the demo ledger (empty on other data) */
  examples: string[];
}

/** primary → workers: `{type, level}`, a level the admin listener set */
export const LOG_LEVEL_MESSAGE = 'lqs:log-level';
/** worker → primary: `{type, id}`, a scrape to answer with every worker's metrics */
export const METRICS_REQUEST = 'lqs:metrics-request';
/** primary → worker: `{type, id, text, contentType}` or `{type, id, error}` */
export const METRICS_REPLY = 'lqs:metrics';
