import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { MissingIndex } from './db/optionalIndexes.js';

/** What every route needs: the configuration (frozen: fixed when the app was built), the database, the clock, the logger and the optional indexes missing. */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  /** the optional indexes (`lqs indexes`) the database lacks, found when the app was built */
  missingIndexes: readonly MissingIndex[];
}
