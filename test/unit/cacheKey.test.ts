import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isCanonicalUrl } from '../../src/http/cacheKey.js';

describe('response cache keys: only canonical URLs are cached', () => {
  it('accepts the spellings the service prints', () => {
    for (const url of [
      '/api/v1/blocks/1',
      '/api/v1/blocks/0',
      '/api/v1/blocks?limit=2&order=asc',
      '/api/v1/blocks?block.number=gte:10&timestamp=lt:1676540001.000000001',
      '/api/v1/accounts/0.0.5',
      '/api/v1/accounts/0.5',
      `/api/v1/blocks/0x${'05'.repeat(48)}`,
      `/api/v1/blocks/${'05'.repeat(32)}`,
      '/api/v1/accounts/HIQQEXWKW53RKN4W6XXC4Q232SYNZ3SZANVZZSUME5B5PRGXL663UAQA',
      '/api/v1/transactions?transactiontype=CRYPTOTRANSFER',
    ]) {
      assert.equal(isCanonicalUrl(url), true, url);
    }
  });

  it('refuses aliases of one resource', () => {
    for (const url of [
      '/api/v1/blocks/0001',
      '/api/v1/blocks/1/',
      '/api/v1//blocks/1',
      '/api/v1/blocks/%31',
      '/api/v1/blocks?',
      '/api/v1/blocks?&limit=1',
      '/api/v1/blocks?limit=1&',
      '/api/v1/blocks?limit=1&&order=asc',
      '/api/v1/blocks?limit=01',
      '/api/v1/blocks?LIMIT=1',
      '/api/v1/blocks?limit',
      '/api/v1/blocks?block.number=gt%3A2',
      '/api/v1/blocks?block.number=gt:02',
      '/api/v1/accounts/000.000.5',
      '/api/v1/accounts/0.0.05',
      '/api/v1/accounts?account.id=gte:0.00.5',
      '/api/v1/blocks?timestamp=lt:01676540001.000000001',
      `/api/v1/blocks/0x${'AB'.repeat(48)}`,
      '/api/v1/accounts?account.publickey=a+b',
    ]) {
      assert.equal(isCanonicalUrl(url), false, url);
    }
  });
});
