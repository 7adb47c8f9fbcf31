import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Harness } from '../../tools/testApp/harness.js';
import { backend } from '../support/harness.js';
import { freePort } from '../support/privatePostgres.js';
import { appWithRedis, blocks as cacheBlocks, reachable, until } from '../support/responseCache.js';
import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';

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

  it("times the shared cache's Redis commands, answered or failed", async (t) => {
    // stub Redis servers in RESP: one answers every command with an error, one finds nothing and refuses stores (full)
    const stub = async (answer: (command: string) => string) => {
      // one answer per command: a chunk may hold several (ioredis sends CLIENT SETINFO twice on connecting)
      const server = createServer((socket) =>
        socket.on('data', (data) => {
          for (const command of String(data).split(/(?=\*\d+\r\n\$)/)) socket.write(answer(command));
        }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, url: `redis://127.0.0.1:${(server.address() as { port: number }).port}` };
    };
    const refusing = await stub(() => '-ERR refused by the test\r\n');
    // the command's name is the first bulk string of its array (a key may hold the word GET too)
    const full = await stub((command) =>
      /^\*\d+\r\n\$\d+\r\nGET\r\n/i.test(command) ? '$-1\r\n' : '-OOM command not allowed when used memory > maxmemory\r\n',
    );
    const h = await Harness.open({ backend });
    try {
      await h.prepare(cacheBlocks(3));
      const lines: string[] = [];
      const count = (command: string, outcome: string) =>
        `lqs_redis_command_duration_milliseconds_count{command="${command}",outcome="${outcome}"}`;
      /** The scrape after one request through a cache with the Redis at `url`, once `seen` is in it. */
      const timed = async (url: string, prefix: string, seen: string) => {
        const app = await appWithRedis(h, url, lines, prefix, { timeoutMs: 2000 });
        try {
          await until(() => (app.responseCache as unknown as { redis: { status: string } }).redis.status === 'ready');
          assert.equal((await app.inject('/api/v1/blocks/1')).statusCode, 200);
          // the store is not awaited
          await until(async () => sample((await app.inject('/swagger/metrics/')).body, seen) === 1);
          return (await app.inject('/swagger/metrics/')).body;
        } finally {
          await app.close();
        }
      };
      // the failed GET marks Redis down for its backoff: the answer is not stored there
      const failed = await timed(refusing.url, 'failing:', count('get', 'error'));
      assert.equal(sample(failed, count('get', 'ok')), undefined);
      assert.equal(sample(failed, count('set', 'ok')), undefined);
      assert.match(failed, /^lqs_redis_command_duration_milliseconds_bucket\{le="50",command="get",outcome="error"\} 1$/m);
      const refused = await timed(full.url, 'full:', count('set', 'error'));
      assert.equal(sample(refused, count('get', 'ok')), 1);
      assert.equal(sample(refused, count('set', 'ok')), undefined);
      if (!(await reachable(6379))) return t.skip('no Redis on 127.0.0.1:6379 for the answered commands');
      const answered = await timed('redis://127.0.0.1:6379', `lqs-test:${randomUUID()}:`, count('set', 'ok'));
      assert.equal(sample(answered, count('get', 'ok')), 1);
      assert.equal(sample(answered, count('set', 'ok')), 1);
      assert.equal(sample(answered, count('get', 'error')), undefined);
      assert.ok(sample(answered, 'lqs_redis_command_duration_milliseconds_sum{command="get",outcome="ok"}')! > 0);
    } finally {
      refusing.server.close();
      full.server.close();
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
