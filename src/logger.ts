import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** The levels POST /change-log-level accepts; `silly` is pino's `trace`. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

const toPino = (level: string): string => (level === 'silly' ? 'trace' : level);

/**
 * The process's root logger (pino, Fastify's logger). Every listener logs through it or a child of
 * it; `destination` defaults to stdout (tests pass a stream to read the lines); `base` adds fields to
 * every line (a cluster primary's role). Every line carries the process's `pid` once, from the base:
 * a line's own fields must not repeat the key (JSON with a key twice reads differently per parser).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  options: { pretty?: boolean; base?: Record<string, unknown> } = {},
): Logger {
  // readable lines for people (`log.pretty`): pino-pretty in this thread, so that lines stay in order with stdout
  const out = options.pretty
    ? pretty({ destination: destination ?? 1, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' })
    : destination;
  return pino({ level: toPino(level), base: { service: 'ledger-query-service', ...options.base, pid: process.pid } }, out);
}

/**
 * Sets the level of `root` and with it of every logger derived from it, existing or future.
 * A pino child created without a level of its own has no own level state: it reads the level and
 * the log methods through its prototype, the parent, so a change of the root reaches Fastify's app
 * loggers and the per-request children alike. Never give a child its own level (Fastify's `logLevel`
 * route or plugin option does): it would stop following.
 */
export function setLogLevel(root: Logger, level: LogLevel): void {
  root.level = toPino(level);
}

/** The current level of `logger` in the names of the endpoint (`trace` reads `silly`); may also be fatal or silent. */
export function currentLogLevel(logger: Logger): string {
  return logger.level === 'trace' ? 'silly' : logger.level;
}
