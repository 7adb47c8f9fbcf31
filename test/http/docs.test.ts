/** The docs page: its own title, and only the operations it can call. */
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
      const json = (await app.inject('/api/v1/docs/json')).json() as { paths: Record<string, Record<string, unknown>> };
      const yaml = (await app.inject('/api/v1/docs/openapi.yml')).body;
      return { html, json, yaml };
    } finally {
      await app.close();
    }
  };

  it('has its own title', async () => {
    const { html } = await page({ enabled: true, host: '127.0.0.1', port: 5552 });
    assert.match(html, /<title>Ledger Query Service API<\/title>/);
    assert.doesNotMatch(html, /<title>Swagger UI<\/title>/);
  });

  it('offers only operations the page can call: not the admin listener’s, on another origin behind Basic auth', async () => {
    for (const admin of [
      { enabled: true, host: '127.0.0.1', port: 5552 },
      { enabled: true, host: '0.0.0.0', port: 7002 },
      { enabled: false, host: '127.0.0.1', port: 5552 },
    ]) {
      const { json, yaml } = await page(admin);
      assert.equal(json.paths['/change-log-level'], undefined);
      assert.ok(json.paths['/api/v1/blocks']);
      assert.ok(
        Object.values(json.paths).every((operations) =>
          Object.keys(operations).every((method) => method === 'get' || method === 'parameters'),
        ),
        'only GETs of this origin',
      );
      // the description as written still documents it
      assert.match(yaml, /^ {2}\/change-log-level:$/m);
    }
  });
});
