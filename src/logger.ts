import { pino, type Logger } from 'pino';

/** The process's root logger (pino, Fastify's logger). Every listener logs through it or a child of it. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'ledger-query-service' } });
}
