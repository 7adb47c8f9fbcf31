import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, get, useHarness } from '../support/harness.js';

describe('request limits and safe headers', () => {
  const harness = useHarness();

  it('sends nosniff, CORS for any origin, and no x-powered-by', async () => {
    await harness().prepare({});
    const res = await get(harness(), '/api/v1/blocks', { origin: 'https://example.org' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['x-powered-by'], undefined);
    const err = await get(harness(), '/api/v1/blocks?limit=x');
    assert.equal(err.headers['x-content-type-options'], 'nosniff');
    assert.equal(err.headers['cache-control'], undefined, 'errors are not cacheable');
  });

  it('refuses over-long URLs with 414', async () => {
    const res = await get(harness(), '/api/v1/blocks?timestamp=' + '1'.repeat(5000));
    assert.equal(res.status, 414);
    assert.deepEqual(res.body, errorOf('URI too long: at most 4096 characters'));
  });

  it('refuses more query parameters than the cap with 400', async () => {
    const res = await get(harness(), '/api/v1/blocks?' + Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&'));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, errorOf('Too many query parameters: at most 100'));
  });

  it('answers 503 with Retry-After beyond the in-flight cap, and recovers', async () => {
    await harness().prepare({}, { server: { maxInFlight: 0 } });
    const res = await get(harness(), '/api/v1/blocks');
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '1');
    assert.deepEqual(res.body, errorOf('Service unavailable'));
    await harness().resetConfig();
    assert.equal((await get(harness(), '/api/v1/blocks')).status, 200);
  });
});
