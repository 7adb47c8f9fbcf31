/**
 * The side of a cluster worker of `serve` (see primary.ts): its metrics are scraped through the
 * primary, which sums those of every worker, and it takes the log levels the primary passes on.
 */
import { AggregatorRegistry } from 'prom-client';
import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { ServiceMetrics } from '../http/metrics.js';
import { isLogLevel, setLogLevel } from '../logger.js';
import { LOG_LEVEL_MESSAGE, METRICS_REPLY, METRICS_REQUEST, type WorkerReady } from './messages.js';

/** A scrape waits this long for the primary (which itself gives the workers 5 s). */
const SCRAPE_TIMEOUT_MS = 10_000;

type MetricsReply = { type: string; id: number; text?: string; contentType?: string; error?: string };

/** This worker's metrics, served as the whole service's: a scrape asks the primary, which collects every worker's. */
export class WorkerMetrics extends ServiceMetrics {
  private nextId = 0;

  constructor(db?: Db) {
    super(db);
    AggregatorRegistry.setRegistries(this.registries());
    // constructed in a worker, it answers the primary's requests for this worker's metrics
    new AggregatorRegistry();
  }

  override scrape(): Promise<{ contentType: string; text: string }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error('the cluster primary did not answer the metrics request')), SCRAPE_TIMEOUT_MS);
      const onMessage = (message: MetricsReply) => {
        if (message?.type !== METRICS_REPLY || message.id !== id) return;
        if (message.error !== undefined) done(new Error(`metrics of the workers: ${message.error}`));
        else done(null, { contentType: message.contentType!, text: message.text! });
      };
      const done = (err: Error | null, value?: { contentType: string; text: string }) => {
        clearTimeout(timer);
        process.off('message', onMessage);
        if (err) reject(err);
        else resolve(value!);
      };
      process.on('message', onMessage);
      process.send!({ type: METRICS_REQUEST, id });
    });
  }
}

/** Takes the levels set through the primary's admin listener, and logs each change. */
export function followLogLevel(root: Logger): void {
  process.on('message', (message: { type?: string; level?: unknown }) => {
    if (message?.type !== LOG_LEVEL_MESSAGE || !isLogLevel(message.level)) return;
    const from = root.level;
    setLogLevel(root, message.level);
    root.warn({ from, to: message.level }, 'log level changed by the cluster primary');
  });
}

export function announceReady(ready: Omit<WorkerReady, 'type'>): void {
  process.send!({ type: 'ready', ...ready } satisfies WorkerReady);
}
