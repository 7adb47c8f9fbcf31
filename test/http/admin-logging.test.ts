/** The level set through the admin app reaches every logger of the process, the public app's included. */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildAdminApp } from '../../src/admin/app.js';
import { buildApp } from '../../src/app.js';
import { configWith } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { errorOf, get, useHarness } from '../support/harness.js';

type LogLine = Record<string, unknown> & { level: number; msg?: string };

const AUTH = 'Basic ' + Buffer.from('ops:pw').toString('base64');
const DEBUG = 20;
const WARN = 40;

describe('log level changes reach the public app', () => {
  const harness = useHarness();
  let lines: LogLine[] = [];
  let root: Logger;
  let publicApp: FastifyInstance;
  let adminApp: FastifyInstance;
  /** a child made before any change, as a module would keep one */
  let early: Logger;
  let release: () => void = () => {};

  before(async () => {
    root = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    early = root.child({ component: 'early' });
    const h = harness();
    await h.prepare({});
    publicApp = await buildApp({ config: h.config, db: h.db, clock: h.clock, logger: root });
    // probes: debug and trace lines of the public app's loggers (the app's and the request's)
    publicApp.get('/probe', async (request) => {
      publicApp.log.debug('public app debug line');
      request.log.debug('public request debug line');
      request.log.trace('public request trace line');
      early.debug('early child debug line');
      return { ok: true };
    });
    // a request in flight while the level changes: its child logger exists before the change
    publicApp.get('/slow', async (request) => {
      await new Promise<void>((resolve) => (release = resolve));
      request.log.debug('in-flight request debug line');
      return { ok: true };
    });
    await publicApp.ready();
    const config = configWith({ admin: { users: ['ops:pw'], maxVerificationsPerSecond: 1000 } });
    adminApp = await buildAdminApp({ config, logger: root });
    await adminApp.ready();
  });

  const change = async (level: string) => {
    const res = await adminApp.inject({
      method: 'POST',
      url: '/change-log-level',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      payload: JSON.stringify({ level }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, `Logging level changed to: ${level}`);
  };
  const messages = () => lines.map((l) => l.msg);
  const probe = async () => assert.equal((await publicApp.inject('/probe')).statusCode, 200);

  it('shows no public debug line at info, then shows them after switching to debug', async () => {
    lines = [];
    await probe();
    assert.ok(messages().includes('request completed'), 'the public app logs its requests at info');
    assert.deepEqual(
      lines.filter((l) => l.level < 30),
      [],
    );

    await change('debug');
    lines = [];
    await probe();
    for (const msg of ['public app debug line', 'public request debug line', 'early child debug line']) {
      const line = lines.find((l) => l.msg === msg);
      assert.equal(line?.level, DEBUG, msg);
    }
    assert.ok(!messages().includes('public request trace line'));
    assert.equal(
      lines.find((l) => l.msg === 'public request debug line')?.listener,
      undefined,
      'a line of the public app, not the admin one',
    );
  });

  it('shows trace lines after switching to silly', async () => {
    await change('silly');
    lines = [];
    await probe();
    assert.ok(messages().includes('public request trace line'));
  });

  it('shows nothing below warn from any logger after switching to warn', async () => {
    await change('warn');
    lines = [];
    await probe();
    assert.equal((await get(harness(), '/health/liveness')).status, 200);
    assert.equal((await publicApp.inject('/api/v1/blocks')).statusCode, 200);
    assert.equal((await publicApp.inject('/api/v1/nothing')).statusCode, 404);
    const res = await adminApp.inject({ url: '/change-log-level', headers: { authorization: AUTH } });
    assert.deepEqual(res.json(), { level: 'warn' });
    early.info('early child info line');
    root.info('root info line');
    assert.deepEqual(
      lines.filter((l) => l.level < WARN),
      [],
    );
    // refusals are still logged at warn
    await adminApp.inject({ url: '/change-log-level' });
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['admin authentication failed'],
    );
  });

  it('reaches a request already in flight when the level changes', async () => {
    await change('info');
    const pending = publicApp.inject('/slow');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await change('debug');
    lines = [];
    release();
    assert.equal((await pending).statusCode, 200);
    assert.ok(messages().includes('in-flight request debug line'));
    await change('info');
  });

  it('logs the change itself at warn, so it shows whatever the new level', async () => {
    for (const level of ['error', 'warn', 'debug']) {
      lines = [];
      await change(level);
      const changed = lines.filter((l) => l.msg === 'log level changed');
      assert.equal(changed.length, 1, level);
      assert.equal(changed[0]!.level, WARN);
      assert.equal(changed[0]!.to, level);
      assert.equal(changed[0]!.user, 'ops');
    }
    await change('info');
  });

  it('is not served by the public app', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await harness().app.inject({
        method,
        url: '/change-log-level',
        headers: { authorization: AUTH, 'content-type': 'application/json' },
        payload: method === 'POST' ? '{"level":"debug"}' : undefined,
      });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), errorOf('Not found'));
    }
    assert.equal(root.level, 'info');
  });
});
