/** The admin app on a private logger and a settable lockout clock, with the credentials and requests its tests use. */
import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Logger } from 'pino';
import { buildAdminApp } from '../../src/admin/app.js';
import { configWith, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

export const USER = 'ops';
export const PASSWORD = 'correct horse';

export type LogLine = Record<string, unknown> & { level: number; msg?: string };

export interface Admin {
  app: FastifyInstance;
  logger: Logger;
  lines: LogLine[];
  raw: string[];
  /** moves the lockout clock on */
  advance(ms: number): void;
}

export async function adminApp(
  admin: Partial<Config['admin']> = { users: [`${USER}:${PASSWORD}`] },
  refusalLogIntervalMs?: number,
): Promise<Admin> {
  // every verification runs scrypt: the default bound (2 a second, the test clock standing still) would
  // refuse most of a test's attempts; the tests of the bound set their own
  const config = configWith({ admin: { maxVerificationsPerSecond: 1000, ...admin } });
  const raw: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void raw.push(line) });
  let now = 1_700_000_000_000;
  const app = await buildAdminApp({ config, logger, nowMs: () => now, refusalLogIntervalMs });
  return {
    app,
    logger,
    raw,
    get lines() {
      return raw.map((l) => JSON.parse(l) as LogLine);
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
export const AUTH = basic(USER, PASSWORD);

export function post(app: FastifyInstance, payload: string, headers: Record<string, string> = {}, extra: Partial<InjectOptions> = {}) {
  return app.inject({
    method: 'POST',
    url: '/change-log-level',
    payload,
    headers: { authorization: AUTH, 'content-type': 'application/json', ...headers },
    ...extra,
  });
}

export async function currentLevel(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ url: '/change-log-level', headers: { authorization: AUTH } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().level;
}

export const warnings = (a: Admin, msg: string) => a.lines.filter((l) => l.level === 40 && l.msg === msg);
