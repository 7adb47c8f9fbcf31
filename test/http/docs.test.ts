/** The docs page: its own title, and the admin operation pointed at the configured admin listener. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.js';
import { configWith } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { useHarness } from '../support/harness.js';

describe('docs page', () => {
  const harness = useHarness();

  const page = async (admin: { enabled: boolean; host: string; port: number }) => {
    const h = harness();
    const config = configWith({ admin }, h.config);
    const app = await buildApp({ config, db: h.db, clock: h.clock, logger: createLogger('silent') });
    try {
      const html = (await app.inject('/api/v1/docs/')).body;
      const json = (await app.inject('/api/v1/docs/json')).json() as { paths: Record<string, { servers?: { url: string }[] }> };
      return { html, json };
    } finally {
      await app.close();
    }
  };

  it('has its own title', async () => {
    const { html } = await page({ enabled: true, host: '127.0.0.1', port: 5552 });
    assert.match(html, /<title>Ledger Query Service API<\/title>/);
    assert.doesNotMatch(html, /<title>Swagger UI<\/title>/);
  });

  it('sends the admin operation to admin.host and admin.port', async () => {
    assert.deepEqual(
      (await page({ enabled: true, host: '10.1.2.3', port: 7001 })).json.paths['/change-log-level']?.servers?.map((s) => s.url),
      ['http://10.1.2.3:7001'],
    );
    assert.deepEqual(
      (await page({ enabled: true, host: '0.0.0.0', port: 7002 })).json.paths['/change-log-level']?.servers?.map((s) => s.url),
      ['http://localhost:7002'],
    );
    assert.deepEqual(
      (await page({ enabled: true, host: '::1', port: 7003 })).json.paths['/change-log-level']?.servers?.map((s) => s.url),
      ['http://[::1]:7003'],
    );
  });

  it('leaves the admin operation out when the admin listener is off', async () => {
    const { json } = await page({ enabled: false, host: '127.0.0.1', port: 5552 });
    assert.equal(json.paths['/change-log-level'], undefined);
    assert.ok(json.paths['/api/v1/blocks']);
  });
});
