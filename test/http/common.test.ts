import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { errorOf, get, useHarness } from '../support/harness.js';
import { buildApp } from '../../src/app.js';
import { configWith } from '../../src/config.js';
import { findMissingOptionalIndexes } from '../../src/db/optionalIndexes.js';
import type { PipelineStep } from '../../src/http/pipeline.js';
import { createLogger } from '../../src/logger.js';

describe('shared HTTP mechanisms', () => {
  const harness = useHarness();

  it('answers unknown routes with a JSON 404 in the error envelope', async () => {
    const res = await get(harness(), '/api/v1/nothing-here');
    assert.equal(res.status, 404);
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    assert.deepEqual(res.body, errorOf('Not found'));
  });

  it('rejects nesting deeper than one level and too many repeated values with the reference texts', async () => {
    await harness().prepare({});
    let res = await get(harness(), '/api/v1/blocks?a[b][c]=1');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, errorOf('Input depth exceeded depth option of 1 and strictDepth is true'));
    res = await get(harness(), '/api/v1/blocks?' + Array.from({ length: 9 }, (_, i) => `timestamp=${i + 1}`).join('&'));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, errorOf('Array limit exceeded. Only 8 elements allowed in an array.'));
    res = await get(harness(), '/api/v1/blocks?' + Array.from({ length: 5 }, (_, i) => `timestamp=${i + 1}&TIMESTAMP=${i + 1}`).join('&'));
    assert.deepEqual(res.body, errorOf('Parameter values count exceeds maximum number allowed: timestamp count: 10 max: 8'));
  });

  it('lists every invalid and unknown parameter', async () => {
    const res = await get(harness(), '/api/v1/blocks?limit=0&foo=1&order=sideways&timestamp=ne:1');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, errorOf('Invalid parameter: limit', 'Invalid parameter: order', 'Unknown query parameter: foo'));
  });

  it('treats parameter names case-insensitively and a bracketed value as invalid', async () => {
    assert.equal((await get(harness(), '/api/v1/blocks?LIMIT=1&Order=ASC')).status, 200);
    const res = await get(harness(), '/api/v1/blocks?limit[x]=1');
    assert.deepEqual(res.body, errorOf('Invalid parameter: limit'));
  });

  it('serves its OpenAPI document and a docs page', async () => {
    const res = await harness().app.inject('/api/v1/docs/openapi.yml');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /yaml/);
    const doc = parseYaml(res.body);
    assert.equal(doc.openapi, '3.0.3');
    for (const path of [
      '/api/v1/accounts/{idOrAliasOrEvmAddress}',
      '/api/v1/accounts/{idOrAliasOrEvmAddress}/nfts',
      '/api/v1/blocks',
      '/api/v1/blocks/{hashOrNumber}',
      '/api/v1/contracts/results/{transactionIdOrHash}',
      '/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}',
      '/change-log-level',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    const page = await harness().app.inject('/api/v1/docs/');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger-ui/i);
  });

  it('reports liveness and readiness', async () => {
    assert.deepEqual((await get(harness(), '/health/liveness')).body, { status: 'UP' });
    // the optional indexes the database lacks are listed (on the mirror node's schema without `lqs indexes`)
    const missing = await findMissingOptionalIndexes(harness().db);
    assert.deepEqual(
      (await get(harness(), '/health/readiness')).body,
      missing.length > 0 ? { status: 'UP', missingOptionalIndexes: missing.map(({ name, slows }) => ({ name, slows })) } : { status: 'UP' },
    );
  });

  it("leaves out the steps the bench's pipeline measurement turns off, and only those", async () => {
    const h = harness();
    const off = await buildApp({
      config: h.config,
      db: h.db,
      clock: h.clock,
      logger: createLogger('silent'),
      pipelineOff: new Set<PipelineStep>(['etag', 'request-ids', 'metrics', 'limits', 'cache']),
    });
    try {
      const res = await off.inject({ url: '/api/v1/blocks', headers: { 'x-request-id': 'abc' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.etag, undefined);
      assert.equal(res.headers['x-request-id'], undefined);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      // no in-flight cap: the limits step is what sheds
      const unlimited = await buildApp({
        config: configWith({ server: { maxInFlight: 0 } }, h.config),
        db: h.db,
        clock: h.clock,
        logger: createLogger('silent'),
        pipelineOff: new Set<PipelineStep>(['limits']),
      });
      try {
        assert.equal((await unlimited.inject('/api/v1/blocks')).statusCode, 200);
      } finally {
        await unlimited.close();
      }
      const scrape = await off.inject('/swagger/metrics/');
      assert.match(scrape.body, /^api_all_request_total 0$/m);
    } finally {
      await off.close();
    }
    const on = await get(h, '/api/v1/blocks', { 'x-request-id': 'abc' });
    assert.match(String(on.headers.etag), /^W\//);
    assert.equal(on.headers['x-request-id'], 'abc');
  });
});
