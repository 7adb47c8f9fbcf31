/**
 * `lqs ingest`: runs the ingestion loop on the configured database, printing a progress line on a
 * terminal. A refused file or a failing source ends `--once` with its one-line reason (exit 1); while
 * following it is retried and reported on stderr. SIGTERM or SIGINT lets the file in hand finish or roll back, then
 * the command ends with 0.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/db.js';
import { UserError } from '../userError.js';
import { type IngestEvents, type IngestProgress, ingest } from './ingester.js';
import { prepareIngestion, type ResolvedIngestion } from './setup.js';
import { StreamSourceError } from './sources/source.js';
import { StreamFileError } from './streamError.js';
import { progressLine } from './progressLine.js';

export async function runIngestCommand(
  db: Db,
  config: Config,
  resolved: ResolvedIngestion,
  once: boolean,
  /** the ingestion benchmark times the steps through it */
  timed?: IngestEvents['timed'],
): Promise<IngestProgress> {
  const options = await prepareIngestion(db, config, resolved.settings, resolved);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGTERM', stop).once('SIGINT', stop);
  const tty = process.stderr.isTTY === true;
  try {
    const progress = await ingest(db, {
      ...options,
      once,
      signal: controller.signal,
      events: {
        written: (_file, p) => {
          if (tty) process.stderr.write(`\r\x1b[K${progressLine(p)}`);
        },
        refused: (e, retryMs) => process.stderr.write(`${tty ? '\n' : ''}refused ${e.message}; trying again in ${retryMs} ms\n`),
        unavailable: (e, retryMs) => process.stderr.write(`${tty ? '\n' : ''}${e.message}; trying again in ${retryMs} ms\n`),
        timed,
      },
    });
    if (tty) process.stderr.write('\n');
    return progress;
  } catch (e) {
    if (e instanceof StreamFileError) throw new UserError(`refused ${e.message}`);
    if (e instanceof StreamSourceError) throw new UserError(e.message);
    throw e;
  } finally {
    process.off('SIGTERM', stop).off('SIGINT', stop);
  }
}
