/**
 * `serve` with `server.workers` other than 1: this process is the cluster primary. It serves no API
 * request and opens no database; it runs the admin listener (so that the failure budgets and the
 * log level are one for the whole service), forks the workers that serve the public listener on
 * the shared port (src/cluster/worker.ts), passes a log level change on to every worker, answers
 * their metrics scrapes with the sum over all of them, and stops them on SIGTERM or SIGINT.
 */
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type PrometheusContentType } from 'prom-client';
import type { Logger } from 'pino';
import { buildAdminApp } from '../admin/app.js';
import type { Config } from '../config.js';
import { createLogger, currentLogLevel } from '../logger.js';
import { listeningUrl, startupBanner } from '../startupBanner.js';
import { UserError } from '../userError.js';
import { createSupervisor, WorkerStartError, type WorkerMessage } from './supervisor.js';
import { LOG_LEVEL_MESSAGE, METRICS_REPLY, METRICS_REQUEST, type WorkerReady } from './messages.js';

/** How long the workers have to finish their requests and close their pools after SIGTERM before they are killed. */
const STOP_TIMEOUT_MS = 30_000;

/** Answers a worker's scrape with the metrics of every worker, aggregated by prom-client. */
function metricsRelay(aggregator: AggregatorRegistry<PrometheusContentType>, log: Logger) {
  return (worker: Worker, message: WorkerMessage) => {
    if (message.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text: string) =>
        worker.isConnected() && worker.send({ type: METRICS_REPLY, id: message.id, text, contentType: aggregator.contentType }),
      (err: unknown) => {
        log.warn({ err }, 'could not collect the metrics of the workers');
        if (worker.isConnected()) worker.send({ type: METRICS_REPLY, id: message.id, error: String((err as Error).message) });
      },
    );
  };
}

export async function servePrimary(config: Config, workers: number): Promise<void> {
  const logger = createLogger(config.log.level, undefined, { pretty: config.log.pretty, base: { role: 'primary' } });
  logger.info({ workers }, 'starting the worker processes');
  const aggregator = new AggregatorRegistry<PrometheusContentType>();
  const supervisor = createSupervisor({
    count: workers,
    log: logger,
    // a replacement starts at the level the admin listener last set
    env: () => ({ LQS_LOG_LEVEL: currentLogLevel(logger) }),
    onMessage: metricsRelay(aggregator, logger),
    onGiveUp: (reason) => {
      void admin?.close();
      process.stderr.write(`error: ${reason}\n`);
      process.exit(1);
    },
  });

  let stopping = false;
  const admin = config.admin.enabled
    ? await buildAdminApp({ config, logger, onLevelChange: (level) => supervisor.broadcast({ type: LOG_LEVEL_MESSAGE, level }) })
    : null;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await Promise.all([supervisor.stop(STOP_TIMEOUT_MS), admin?.close()]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  let ready: WorkerReady;
  try {
    if (admin) await admin.listen({ port: config.admin.port, host: config.admin.host });
    ready = (await supervisor.start()) as unknown as WorkerReady;
  } catch (err) {
    if (stopping) return;
    await admin?.close();
    if (err instanceof WorkerStartError) {
      throw new UserError(
        `a worker process exited (${err.code}) before it was ready: the service did not start (the worker's error is above)`,
      );
    }
    throw err;
  }
  if (stopping) return;

  if (!admin) logger.info('admin listener disabled (admin.enabled is false)');
  process.stdout.write(
    startupBanner({
      base: ready.url,
      backend: ready.backend,
      adminUrl: admin ? listeningUrl(admin.server) : null,
      examples: ready.examples,
      workers,
    }),
  );
}
