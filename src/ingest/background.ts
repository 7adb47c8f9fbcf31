/**
 * `serve` with `ingest.source`: the ingestion loop in the serving process (the only way with PGlite,
 * which one process owns). Configuration problems stop start-up; afterwards a refused file is retried
 * with backoff and reported in the logs and metrics, and a failure of the database restarts the loop
 * after a wait. The API's readiness does not depend on it. `stop` lets the file in hand finish or
 * roll back.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import type { MainnetErrata } from './errata/mainnetErrataFiles.js';
import { ingest, sleep } from './ingester.js';
import type { IngestMetrics } from './metrics.js';
import { missingErrataWarning, prepareIngestion } from './setup.js';
import { formatNanos } from './progressLine.js';
import { lastRecordFile } from './writers/recordFileWriter.js';

export interface BackgroundIngestion {
  stop(): Promise<void>;
}

/** `errata`: the errata folder of `ingest.errata`, read before the database was opened (undefined: read here). */
export async function startIngestion(
  db: Db,
  config: Config,
  logger: Logger,
  metrics?: IngestMetrics,
  errata?: MainnetErrata | null,
): Promise<BackgroundIngestion> {
  const log = logger.child({ component: 'ingest' });
  const options = await prepareIngestion(db, config, config.ingest, undefined, errata);
  const controller = new AbortController();
  const signal = controller.signal;
  metrics?.startFrom((await lastRecordFile(db))?.consensusEnd ?? null);
  const warning = missingErrataWarning(config.ingest);
  if (warning) log.warn(warning);
  log.info({ source: options.source.description }, 'ingesting');
  const run = (async () => {
    while (!signal.aborted) {
      try {
        const progress = await ingest(db, {
          ...options,
          once: false,
          signal,
          events: {
            written: (file) => {
              metrics?.written(file.count, file.consensusEnd);
              log.debug(
                { file: file.name, index: String(file.index), records: file.count, consensusEnd: formatNanos(file.consensusEnd) },
                'file written',
              );
            },
            refused: (e, retryMs) => {
              metrics?.verificationFailures.inc();
              log.warn({ file: e.file, reason: e.reason, retryMs }, 'stream file refused; ingestion stalls until it can be accepted');
            },
            unavailable: (e, retryMs) => {
              log.warn({ reason: e.message, retryMs }, 'stream source unavailable; ingestion stalls until it answers');
            },
          },
        });
        log.info({ files: progress.files, records: progress.records }, 'ingestion stopped');
      } catch (err) {
        if (signal.aborted) break;
        log.error({ err }, 'ingestion failed; starting again shortly');
        await sleep(config.ingest.maxPollMs, signal);
      }
    }
  })();
  return {
    async stop() {
      controller.abort();
      await run;
      await options.source.close();
    },
  };
}
