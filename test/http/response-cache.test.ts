import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Harness, REFERENCE_TEST_CONFIG } from '../../tools/testApp/harness.js';
import { ENTRY_OVERHEAD_BYTES, maxAgeOf } from '../../src/http/responseCache.js';
import { backend } from '../support/harness.js';
import { freePort } from '../support/privatePostgres.js';
import { BLOCKS, appWithRedis, blocks, fetchRaw, hashOf, reachable, until } from '../support/responseCache.js';

const URLS = [
  '/api/v1/blocks?limit=2&order=asc',
  '/api/v1/blocks?order=asc&limit=2',
  '/api/v1/blocks?limit=3&block.number=gt:2',
  '/api/v1/blocks?limit=100',
  '/api/v1/blocks/3',
  `/api/v1/blocks/0x${hashOf(4)}`,
  `/api/v1/blocks/${hashOf(5).slice(0, 64)}`,
];

describe('response cache', () => {
  let now = 1_000_000;
  let cached: Harness;
  let uncached: Harness;
  before(async () => {
    cached = await Harness.open({ backend, baseConfig: { ...REFERENCE_TEST_CONFIG, cache: { enabled: true } }, cacheNow: () => now });
    uncached = await Harness.open({ backend, baseConfig: REFERENCE_TEST_CONFIG });
  });
  after(async () => {
    await cached?.close();
    await uncached?.close();
  });

  it('is off in the harness unless asked for, and reads max-age', () => {
    assert.equal(uncached.app.responseCache, null);
    assert.equal(maxAgeOf('public, max-age=600'), 600);
    assert.equal(maxAgeOf('public, max-age=1'), 1);
    assert.equal(maxAgeOf('no-store'), null);
    assert.equal(maxAgeOf(undefined), null);
  });

  it('answers a repeated request without a query, byte-identical to the uncached answer, headers included', async () => {
    await cached.prepare(blocks());
    await uncached.prepare(blocks());
    // plain, and encoded after the cache (compression and the ETag apply to a cached answer as to any)
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      for (const url of URLS) {
        const reference = await fetchRaw(uncached.app, url, headers);
        assert.equal(reference.status, 200, url);
        const first = await fetchRaw(cached.app, url, headers);
        let second: Awaited<ReturnType<typeof fetchRaw>> | undefined;
        const queries = await cached.captureQueries(async () => {
          second = await fetchRaw(cached.app, url, headers);
        });
        assert.deepEqual(queries, [], `${url}: served from the cache`);
        for (const res of [first, second!]) {
          assert.equal(res.status, reference.status, url);
          assert.deepEqual(res.headers, reference.headers, url);
          assert.ok(res.body.equals(reference.body), url);
        }
      }
    }
    const tagged = await fetchRaw(cached.app, URLS[3]!);
    assert.ok(tagged.headers.etag, 'a cached 200 carries its ETag');
    const revalidated = await fetchRaw(cached.app, URLS[3]!, { 'if-none-match': String(tagged.headers.etag) });
    assert.equal(revalidated.status, 304);
    // the parameters' order is kept: the two orders are two entries with their own next links
    const a = await fetchRaw(cached.app, URLS[0]!);
    const b = await fetchRaw(cached.app, URLS[1]!);
    assert.notEqual(a.headers.link, b.headers.link);
    assert.match(String(b.headers.link), /order=asc&limit=2/);
  });

  it('keeps only 200s', async () => {
    await cached.prepare(blocks());
    for (const url of ['/api/v1/blocks/999', '/api/v1/blocks?limit=x', '/api/v1/blocks/3?foo=1']) {
      const first = await fetchRaw(cached.app, url);
      assert.notEqual(first.status, 200);
      const queries = await cached.captureQueries(() => fetchRaw(cached.app, url));
      if (first.status === 404) assert.ok(queries.length > 0, `${url}: not cached`);
      assert.equal((await fetchRaw(cached.app, url)).status, first.status);
    }
    const head = await cached.app.inject({ method: 'HEAD', url: '/api/v1/blocks/3' });
    assert.equal(head.statusCode, 200);
  });

  it('serves an entry for its max-age and no longer', async () => {
    await cached.prepare(blocks());
    now = 2_000_000;
    const list = '/api/v1/blocks?limit=1';
    const block = '/api/v1/blocks/11';
    const before = await fetchRaw(cached.app, list);
    assert.equal(before.headers['cache-control'], 'public, max-age=1');
    assert.equal((await fetchRaw(cached.app, block)).status, 200);
    // new data behind the cache's back (the harness' db, not prepare, which clears the cache)
    await cached.db.exec(`delete from record_file where index = 11`);
    now += 999;
    assert.deepEqual((await cached.captureQueries(() => fetchRaw(cached.app, list))).length, 0, 'within max-age=1');
    assert.ok((await fetchRaw(cached.app, list)).body.equals(before.body));
    now += 1;
    const after = await fetchRaw(cached.app, list);
    assert.ok(!after.body.equals(before.body), 'refetched at max-age');
    assert.match(after.body.toString(), /"number":10/);
    now += 599_000 - 1000;
    assert.equal((await fetchRaw(cached.app, block)).status, 200, 'a block is kept for max-age=600');
    now += 1000;
    assert.equal((await fetchRaw(cached.app, block)).status, 404, 'and refetched after it');
  });

  it('is emptied by a fixture load', async () => {
    await cached.prepare(blocks());
    assert.equal((await fetchRaw(cached.app, '/api/v1/blocks/11')).status, 200);
    await cached.prepare(blocks(5));
    assert.equal((await fetchRaw(cached.app, '/api/v1/blocks/11')).status, 404);
  });

  it('keeps one entry per resource: aliases are answered from the database', async () => {
    await cached.prepare(blocks());
    const cache = cached.app.responseCache!;
    const canonical = await fetchRaw(cached.app, '/api/v1/blocks/1');
    const list = await fetchRaw(cached.app, '/api/v1/blocks?limit=1');
    const entries = cache.snapshot().entries;
    const aliases: [string, typeof canonical][] = [
      ['/api/v1/blocks/0001', canonical],
      ['/api/v1/blocks/1/', canonical],
      ['/api/v1/blocks/%31', canonical],
      ['/api/v1/blocks?&limit=1', list],
      ['/api/v1/blocks?limit=1&', list],
      ['/api/v1/blocks?limit=01', list],
    ];
    for (const [url, expected] of aliases) {
      for (let i = 0; i < 2; i++) {
        const res = await fetchRaw(cached.app, url);
        assert.equal(res.status, 200, url);
        assert.equal(JSON.parse(res.body.toString()).number ?? null, JSON.parse(expected.body.toString()).number ?? null, url);
      }
      const queries = await cached.captureQueries(() => fetchRaw(cached.app, url));
      assert.ok(queries.length > 0, `${url}: not cached`);
    }
    assert.equal(cache.snapshot().entries, entries, 'no entry for an alias');
  });

  it('stays within its byte bound', async () => {
    const h = await Harness.open({ backend, baseConfig: { cache: { enabled: true, maxBytes: 4096 } } });
    try {
      await h.prepare(blocks(40));
      let smallest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 40; i++) {
        const res = await fetchRaw(h.app, `/api/v1/blocks/${i}`);
        assert.equal(res.status, 200);
        smallest = Math.min(smallest, res.body.length);
      }
      const stats = h.app.responseCache!.snapshot();
      assert.ok(stats.bytes <= 4096 && stats.entries < 40 && stats.entries > 0, JSON.stringify(stats));
      // an entry is charged what it costs the process, not its payload alone (tools/bench/cacheMemory.ts)
      assert.ok(stats.bytes >= stats.entries * (smallest + ENTRY_OVERHEAD_BYTES), JSON.stringify(stats));
      assert.ok(ENTRY_OVERHEAD_BYTES >= 1000);
    } finally {
      await h.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Redis

const redisUp = await reachable(6379);

describe('response cache shared through Redis', () => {
  let h: Harness;
  before(async () => {
    h = await Harness.open({ backend });
    await h.prepare(blocks());
  });
  after(async () => {
    await h?.close();
  });

  it('shares entries between processes', { skip: !redisUp && 'no Redis on 127.0.0.1:6379' }, async () => {
    const prefix = `lqs-test:${randomUUID()}:`;
    const lines: string[] = [];
    const a = await appWithRedis(h, 'redis://127.0.0.1:6379', lines, prefix, { timeoutMs: 2000 });
    const b = await appWithRedis(h, 'redis://127.0.0.1:6379', lines, prefix, { timeoutMs: 2000 });
    try {
      await until(() => a.responseCache!.snapshot().redisErrors === 0 && (a.responseCache as any).redis.status === 'ready');
      await until(() => (b.responseCache as any).redis.status === 'ready');
      const url = '/api/v1/blocks/7';
      const first = await fetchRaw(a, url);
      // the store is not awaited
      await until(async () => (await (a.responseCache as any).redis.exists(`${prefix}GET ${url} []`)) === 1);
      const second = await fetchRaw(b, url);
      assert.equal(b.responseCache!.snapshot().redisHits, 1);
      assert.deepEqual(second.headers, first.headers);
      assert.ok(second.body.equals(first.body));
      assert.deepEqual(lines, []);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('answers from the database when Redis is not listening', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const app = await appWithRedis(h, `redis://127.0.0.1:${port}`, lines, 'lqs-test:');
    try {
      const started = Date.now();
      for (let i = 0; i < 30; i++) {
        const res = await fetchRaw(app, `/api/v1/blocks/${i % BLOCKS}?n=${i}`);
        assert.equal(res.status, 400); // an unknown parameter: answered, not cached
        assert.equal((await fetchRaw(app, `/api/v1/blocks/${i % BLOCKS}`)).status, 200);
        await sleep(10);
      }
      assert.ok(Date.now() - started < 5000);
      assert.ok(lines.length <= 1, `one warning at most, not one per request: ${lines.length}`);
    } finally {
      await app.close();
    }
  });

  it('answers from the database when its own Redis stalls or dies, and uses it again once it answers', async () => {
    const port = await freePort();
    const server: ChildProcess = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const lines: string[] = [];
    const apps: FastifyInstance[] = [];
    try {
      await until(() => reachable(port));
      const app = await appWithRedis(h, `redis://127.0.0.1:${port}`, lines, 'lqs-test:');
      apps.push(app);
      const cache = app.responseCache!;
      await until(() => (cache as any).redis.status === 'ready');
      assert.equal((await fetchRaw(app, '/api/v1/blocks/1')).status, 200);

      // paused: the connection stays open and commands hang; a lookup gives up after timeoutMs,
      // and the process leaves Redis alone for backoffMs
      server.kill('SIGSTOP');
      const stalled = Date.now();
      for (let i = 0; i < 10; i++) assert.equal((await fetchRaw(app, `/api/v1/blocks/${i}`)).status, 200);
      const elapsed = Date.now() - stalled;
      // without the lookup timeout each request would hang as long as Redis stays paused; the bound
      // is loose so that a loaded machine does not trip it
      assert.ok(elapsed < 10_000, `bounded by the timeout and the back-off: ${elapsed} ms`);
      assert.ok(cache.snapshot().redisErrors >= 1);

      // resumed: after the back-off a lookup answers again, and a store reaches another process
      server.kill('SIGCONT');
      await sleep(400);
      const url = `/api/v1/blocks/0x${hashOf(3)}`;
      assert.equal((await fetchRaw(app, url)).status, 200);
      const other = await appWithRedis(h, `redis://127.0.0.1:${port}`, lines, 'lqs-test:');
      apps.push(other);
      await until(() => (other.responseCache as any).redis.status === 'ready');
      // looked up with a client of the test's own: the app's gives up after its 50 ms lookup timeout,
      // which a loaded machine can exceed
      const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true });
      try {
        await probe.connect();
        await until(async () => (await probe.exists(`lqs-test:GET ${url} []`)) === 1);
      } finally {
        probe.disconnect();
      }
      assert.equal((await fetchRaw(other, url)).status, 200);
      assert.equal(other.responseCache!.snapshot().redisHits, 1);

      // killed: the connection breaks, the client reconnects in the background
      server.kill('SIGKILL');
      await new Promise((resolve) => server.once('exit', resolve));
      for (let i = 0; i < 10; i++) assert.equal((await fetchRaw(app, `/api/v1/blocks/${hashOf(i).slice(0, 64)}`)).status, 200);
      assert.ok(lines.length <= 3, `a warning per outage and process, not per request: ${lines.length}`);
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGCONT');
        server.kill('SIGKILL');
      }
      for (const app of apps) await app.close();
    }
  });
});
