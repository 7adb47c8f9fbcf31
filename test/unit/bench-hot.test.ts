import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HOT_URLS, buildHotMixes } from '../../tools/bench/mixes.js';
import { parseBenchOptions } from '../../tools/bench/options.js';
import { aggregateHot, hotMarkdown, type HotMeasurement } from '../../tools/bench/report.js';
import type { DatasetSample } from '../../tools/bench/sample.js';

function sample(): DatasetSample {
  const account = (num: number) => ({ num, alias: null, evm: null, deleted: false });
  return {
    summary: {
      shard: 0,
      realm: 0,
      seed: 1,
      blocks: 100,
      windowStart: '1706731200000000000',
      windowEnd: '1706817600000000000',
      topNftOwners: [[1004, 50]],
    },
    hubs: [1001, 1002, 1003, 1004, 1005].map(account),
    active: Array.from({ length: 30 }, (_, i) => account(2000 + i)),
    tail: [],
    nftOwners: [1004, 1010].map(account),
    nfts: [],
    nftTokens: [],
    blocks: Array.from({ length: 40 }, (_, i) => ({ number: i * 2, hash: i.toString(16).padStart(96, '0') })),
    contractResults: Array.from({ length: 20 }, (_, i) => ({
      timestamp: String(1706731200000000000n + BigInt(i)),
      contract: 3000 + i,
      contractEvm: null,
      payer: 1002,
      validStart: String(1706731199000000000n + BigInt(i)),
      nonce: 0,
      hash: i.toString(16).padStart(64, '0'),
    })),
  } as unknown as DatasetSample;
}

describe('bench hot mixes', () => {
  it('repeat a few popular URLs, the first ones most', () => {
    const mixes = buildHotMixes(sample(), 1);
    for (const [target, mix] of Object.entries(mixes)) {
      assert.equal(mix!.length, 2000, target);
      const counts = new Map<string, number>();
      for (const r of mix!) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
      assert.ok(counts.size <= HOT_URLS && counts.size >= 2, `${target}: ${counts.size} URLs`);
      const sorted = [...counts.values()].sort((a, b) => b - a);
      assert.ok(sorted[0]! > 1.5 * sorted.at(-1)!, `${target}: skewed`);
      assert.ok(mix!.every((r) => r.expect === 'ok'));
    }
    const newest = new Set(mixes.block!.map((r) => r.path));
    assert.ok(newest.has('/api/v1/blocks/78'), 'the newest block');
    assert.ok(!newest.has('/api/v1/blocks/0'));
    assert.ok(
      mixes.accounts!.some((r) => r.path === '/api/v1/accounts/0.0.1001'),
      'a hub',
    );
  });

  it('run at 32 connections by default, with the Redis on 127.0.0.1:6379 unless told', () => {
    const o = parseBenchOptions([], {});
    assert.deepEqual(o.hotConcurrency, [32]);
    assert.equal(o.redisUrl, 'redis://127.0.0.1:6379');
    assert.deepEqual(parseBenchOptions(['--hot-concurrency', 'none', '--redis', 'none'], {}).hotConcurrency, []);
    assert.equal(parseBenchOptions(['--redis', 'none'], {}).redisUrl, '');
    assert.equal(parseBenchOptions([], { LQS_BENCH_REDIS_URL: 'redis://h:1' }).redisUrl, 'redis://h:1');
    assert.deepEqual(parseBenchOptions(['--hot-concurrency', '8,32'], {}).hotConcurrency, [8, 32]);
  });

  it('report medians, the share of the paired ceiling and the hit ratio', () => {
    const m = (run: number, rps: number, pk: number, hitRatio: number): HotMeasurement => ({
      scale: 'small',
      target: 'block',
      config: 'cache',
      concurrency: 32,
      run,
      requests: rps,
      seconds: 1,
      rps,
      latencyMs: { p50: 1, p99: 2, p999: 3, mean: 1, max: 4 },
      statuses: { 200: rps },
      unexpected: 0,
      unexpectedExamples: [],
      socketErrors: {},
      pairedPkCeilingRps: pk,
      hitRatio,
      redisHitShare: NaN,
      redisErrors: 0,
    });
    const [row] = aggregateHot([m(1, 2000, 1000, 0.99), m(2, 3000, 1000, 0.995), m(3, 9000, 3000, 1)]);
    assert.equal(row!.rps, 3000);
    assert.equal(row!.ofPkCeiling, 3);
    assert.equal(row!.hitRatio, 0.995);
    assert.match(hotMarkdown([row!], 2), /\| block \| 32 \| cache \| 3000 \| 300% \| 1000 \|.*\| 99\.5% \| – \|/);
  });
});
