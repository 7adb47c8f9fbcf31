import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Harness } from '../../tools/testApp/harness.js';
import { backend } from '../support/harness.js';
import { freePort } from '../support/privatePostgres.js';

const START = 1_676_540_001_000_000_000n;
const hashOf = (i: number) => i.toString(16).padStart(2, '0').repeat(48);

function blocks(count: number) {
  return {
    recordFiles: Array.from({ length: count }, (_, i) => ({
      index: i,
      consensus_start: (START + BigInt(i) * 1000n).toString(),
      consensus_end: (START + BigInt(i) * 1000n + 999n).toString(),
      hash: hashOf(i),
      prev_hash: i === 0 ? '0'.repeat(96) : hashOf(i - 1),
    })),
  };
}

/** The value of one sample (name with its labels as printed), undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('response cache and Redis metrics', () => {
  it('counts hits, misses, stores, evictions, bytes and Redis errors from the cache', async () => {
    // a Redis that refuses connections: every attempt is an error, answers come from the database
    const redisPort = await freePort();
    const h = await Harness.open({
      backend,
      baseConfig: { cache: { enabled: true, maxBytes: 4096, redis: { url: `redis://127.0.0.1:${redisPort}`, backoffMs: 10 } } },
    });
    try {
      await h.prepare(blocks(20));
      for (let i = 0; i < 20; i++) assert.equal((await h.app.inject(`/api/v1/blocks/${i}`)).statusCode, 200);
      assert.equal((await h.app.inject('/api/v1/blocks/19')).statusCode, 200);
      const stats = h.app.responseCache!.snapshot();
      for (let i = 0; i < 100 && h.app.responseCache!.snapshot().redisErrors === 0; i++) await sleep(20);
      const text = (await h.app.inject('/swagger/metrics/')).body;
      assert.equal(sample(text, 'lqs_response_cache_hits_total{source="local"}'), 1);
      assert.equal(sample(text, 'lqs_response_cache_hits_total{source="redis"}'), 0);
      assert.equal(sample(text, 'lqs_response_cache_misses_total'), 20);
      assert.equal(sample(text, 'lqs_response_cache_stores_total'), 20);
      const evictions = sample(text, 'lqs_response_cache_evictions_total')!;
      const entries = sample(text, 'lqs_response_cache_entries')!;
      assert.ok(evictions > 0 && evictions === 20 - entries, `${evictions} evicted, ${entries} kept`);
      assert.equal(sample(text, 'lqs_response_cache_bytes'), stats.bytes);
      assert.ok(sample(text, 'lqs_response_cache_bytes')! <= 4096);
      assert.ok(sample(text, 'lqs_redis_errors_total')! >= 1);
    } finally {
      await h.close();
    }
  });

  it('leaves them out without a response cache', async () => {
    const h = await Harness.open({ backend });
    try {
      const text = (await h.app.inject('/swagger/metrics/')).body;
      assert.doesNotMatch(text, /lqs_response_cache_|lqs_redis_/);
      assert.match(text, /^api_all_request_total /m);
    } finally {
      await h.close();
    }
  });
});
