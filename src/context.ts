import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';

/** What every route needs: the live configuration, the database, the clock and the logger. */
export interface AppContext {
  /** read on every request, so that a change (tests, conformance cases) applies at once */
  config: Config;
  /** values fixed when the app was built, as the reference reads them once at start-up */
  startup: { defaultLimit: number };
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
}
