/** The reference's response.headers and log.sampleRate, through the one pipeline and request log of an app. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { configWith } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { useHarness } from '../support/harness.js';

interface Line {
  level: number;
  msg: string;
  status?: number;
  route?: string | null;
}

const INFO = 30;
const DEBUG = 20;

describe("the reference's response settings", () => {
  const harness = useHarness();
  const apps: FastifyInstance[] = [];
  const open = async (overrides: Record<string, unknown>, level = 'info') => {
    const h = harness();
    const lines: Line[] = [];
    const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const app = await buildApp({ config: configWith(overrides, h.config), db: h.db, clock: h.clock, logger });
    apps.push(app);
    return { app, lines };
  };

  before(async () => {
    await harness().prepare({ recordFiles: [{ index: 7, hash: 'ab'.repeat(48) }] });
  });
  after(async () => {
    for (const app of apps) await app.close();
  });

  it('adds response.headers.default and the route’s response.headers.path to successful API answers only', async () => {
    const { app } = await open({
      cache: { enabled: true },
      response: {
        headers: {
          default: { 'x-served-by': 'lqs', 'cache-control': 'public, max-age=3' },
          path: { '/api/v1/blocks/:hashOrNumber': { 'cache-control': 'public, max-age=900', 'x-block': 'yes' } },
        },
      },
    });
    const one = await app.inject('/api/v1/blocks/7');
    assert.equal(one.statusCode, 200);
    assert.equal(one.headers['x-served-by'], 'lqs');
    assert.equal(one.headers['x-block'], 'yes');
    assert.equal(one.headers['cache-control'], 'public, max-age=900');
    // a cached answer carries them as well (the cache keeps the payload; onSend writes the headers)
    const again = await app.inject('/api/v1/blocks/7');
    assert.equal(again.headers['x-served-by'], 'lqs');
    assert.equal(again.headers['cache-control'], 'public, max-age=900');
    const list = await app.inject('/api/v1/blocks');
    assert.equal(list.headers['x-served-by'], 'lqs');
    assert.equal(list.headers['x-block'], undefined);
    assert.equal(list.headers['cache-control'], 'public, max-age=3');
    // not the docs page and its description, which are not the API's answers
    const { app: typed } = await open({ response: { headers: { default: { 'content-type': 'application/json; charset=utf-8' } } } });
    assert.equal((await typed.inject('/api/v1/blocks')).headers['content-type'], 'application/json; charset=utf-8');
    const description = await typed.inject('/api/v1/docs/openapi.yml');
    assert.equal(description.headers['content-type'], 'text/yaml; charset=utf-8');
    assert.equal(description.headers['cache-control'], 'public, max-age=1');
    const error = await app.inject('/api/v1/blocks?limit=x');
    assert.equal(error.statusCode, 400);
    assert.equal(error.headers['x-served-by'], undefined);
  });

  it('matches a path of the reference whatever its parameters are named; a route’s own Cache-Control wins over the default', async () => {
    const { app } = await open({
      response: {
        headers: {
          default: { 'cache-control': 'public, max-age=3' },
          path: { '/api/v1/blocks/:number/': { 'x-block': 'any name' } },
        },
      },
    });
    const one = await app.inject('/api/v1/blocks/7');
    assert.equal(one.headers['x-block'], 'any name');
    // as the reference's own default path headers win over its default ones
    assert.equal(one.headers['cache-control'], 'public, max-age=600');
  });

  it('logs successful requests at the log.sampleRate share, errors always, health probes at debug', async () => {
    const { app, lines } = await open({ log: { sampleRate: 0 } });
    await app.inject('/api/v1/blocks/7');
    await app.inject('/api/v1/blocks?limit=x');
    await app.inject('/health/liveness');
    const completed = lines.filter((l) => l.msg === 'request completed');
    assert.deepEqual(
      completed.map((l) => l.status),
      [400],
    );
    const all = await open({}, 'info');
    await all.app.inject('/api/v1/blocks/7');
    await all.app.inject('/health/liveness');
    await all.app.inject('/health/readiness');
    assert.deepEqual(
      all.lines.filter((l) => l.msg === 'request completed').map((l) => [l.level, l.route]),
      [[INFO, '/api/v1/blocks/:hashOrNumber']],
    );
    const debug = await open({}, 'debug');
    await debug.app.inject('/health/readiness');
    assert.deepEqual(
      debug.lines.filter((l) => l.msg === 'request completed').map((l) => [l.level, l.route]),
      [[DEBUG, '/health/readiness']],
    );
  });
});
