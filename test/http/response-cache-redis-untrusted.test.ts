import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Harness } from '../../tools/testApp/harness.js';
import { backend } from '../support/harness.js';
import { freePort } from '../support/privatePostgres.js';
import { appWithRedis, blocks, fetchRaw, reachable, until } from '../support/responseCache.js';

const redisUp = await reachable(6379);
const skip = !redisUp && 'no Redis on 127.0.0.1:6379';
const FAR_FUTURE = Date.now() + 10 * 365 * 86_400_000;

/** a timeout no lookup reaches on a loaded machine: these tests are about what Redis answers */
const PATIENT = { timeoutMs: 2000 };

const ready = (app: FastifyInstance) => until(() => (app.responseCache as any).redis.status === 'ready');

/**
 * Two processes sharing a Redis under a prefix of their own: `writer` stores genuine answers, the
 * test overwrites them directly in Redis, `reader` (which has not seen the URL) reads them.
 */
describe('response cache: what Redis holds is untrusted', { skip }, () => {
  let h: Harness;
  let redis: Redis;
  let prefix: string;
  let lines: string[];
  let writer: FastifyInstance;
  let reader: FastifyInstance;
  before(async () => {
    h = await Harness.open({ backend });
    await h.prepare(blocks());
    redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
    await redis.connect();
    prefix = `lqs-test:${randomUUID()}:`;
    lines = [];
    writer = await appWithRedis(h, 'redis://127.0.0.1:6379', lines, prefix, PATIENT);
    reader = await appWithRedis(h, 'redis://127.0.0.1:6379', lines, prefix, PATIENT);
    await ready(writer);
    await ready(reader);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await writer?.close();
    await reader?.close();
    await h?.close();
  });

  /** The writer's genuine answer of `url` and the Redis key it is stored under. */
  async function stored(url: string) {
    const genuine = await fetchRaw(writer, url);
    assert.equal(genuine.status, 200);
    let keys: string[] = [];
    await until(async () => {
      keys = await redis.keys(`${prefix}*${url} *`);
      return keys.length === 1;
    });
    return { genuine, key: keys[0]! };
  }

  it('drops and counts an entry not in its own shape, and keeps using Redis', async () => {
    const hostile: unknown[] = [
      // the shape before entries were validated: its headers were sent as they were
      {
        headers: { 'content-type': 'text/html', 'set-cookie': 'session=stolen', 'transfer-encoding': 'chunked', 'content-length': '5' },
        payload: '<script>alert(1)</script>',
        expiresAt: FAR_FUTURE,
      },
      {
        v: 1,
        payload: '<script>alert(1)</script>',
        expiresAt: FAR_FUTURE,
        cacheControl: 'public, max-age=600',
        headers: { 'set-cookie': 'a=b' },
      },
      // bad header characters: Node refuses them, which was a 500 for as long as the entry lived
      {
        v: 1,
        payload: '{}',
        expiresAt: FAR_FUTURE,
        cacheControl: 'public, max-age=600',
        link: '</api/v1/blocks>; rel="next"\r\nset-cookie: a=b',
      },
      { v: 1, payload: '{}', expiresAt: FAR_FUTURE, cacheControl: 'public, max-age=600\u0001' },
      { v: 1, payload: '{}', expiresAt: FAR_FUTURE, cacheControl: 'public, max-age=99999999' },
      { v: 2, payload: '{}', expiresAt: FAR_FUTURE, cacheControl: 'public, max-age=600' },
      { v: 1, payload: 42, expiresAt: FAR_FUTURE, cacheControl: 'public, max-age=600' },
      { v: 1, payload: '{}', expiresAt: 'never', cacheControl: 'public, max-age=600' },
      [1, 2, 3],
    ];
    const texts = [...hostile.map((entry) => JSON.stringify(entry)), 'not json {'];
    for (const [i, text] of texts.entries()) {
      const url = `/api/v1/blocks/${i}`;
      const { genuine, key } = await stored(url);
      await redis.set(key, text);
      const before = reader.responseCache!.snapshot();
      const res = await fetchRaw(reader, url);
      assert.equal(res.status, 200, text);
      assert.deepEqual(res.headers, genuine.headers, text);
      assert.ok(res.body.equals(genuine.body), text);
      const after = reader.responseCache!.snapshot();
      assert.equal(after.malformed, before.malformed + 1, text);
      assert.equal(after.redisHits, before.redisHits, text);
      assert.equal(after.redisErrors, 0, `${text}: not counted as Redis down`);
    }
    // Redis is still used: a genuine entry is read from it at once
    const { genuine } = await stored('/api/v1/blocks/11');
    const res = await fetchRaw(reader, '/api/v1/blocks/11');
    assert.ok(res.body.equals(genuine.body));
    assert.equal(reader.responseCache!.snapshot().redisHits, 1);
    assert.deepEqual(lines, []);
  });

  it('restores only its own headers and keeps an entry no longer than its max-age', async () => {
    const url = '/api/v1/blocks/10';
    const { genuine, key } = await stored(url);
    const forged = '{"forged":true}';
    await redis.set(key, JSON.stringify({ v: 1, payload: forged, expiresAt: FAR_FUTURE, cacheControl: 'public, max-age=1' }));
    const served = await fetchRaw(reader, url);
    assert.equal(served.body.toString(), forged, 'an entry in the right shape is served');
    assert.equal(served.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(served.headers['set-cookie'], undefined);
    // deleted from Redis: the process keeps it for its max-age from when it was read, not for years
    await redis.del(key);
    assert.equal((await fetchRaw(reader, url)).body.toString(), forged);
    await sleep(1100);
    const res = await fetchRaw(reader, url);
    assert.ok(res.body.equals(genuine.body), 'refetched after max-age=1');
  });
});

describe('response cache: a full Redis', () => {
  it('is logged once, not as an outage flapping every back-off', async () => {
    const port = await freePort();
    const server: ChildProcess = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory',
        '1',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
    const h = await Harness.open({ backend });
    const lines: string[] = [];
    let app: FastifyInstance | undefined;
    try {
      await h.prepare(blocks());
      await until(() => reachable(port));
      app = await appWithRedis(h, `redis://127.0.0.1:${port}`, lines, 'lqs-test:', { ...PATIENT, level: 'info' });
      await ready(app);
      // over several back-off periods (200 ms): every store is refused with OOM, lookups answer
      for (let i = 0; i < 12; i++) {
        assert.equal((await fetchRaw(app, `/api/v1/blocks/${i}`)).status, 200);
        await sleep(100);
      }
      const stats = app.responseCache!.snapshot();
      assert.ok(stats.redisStoresRefused >= 10, JSON.stringify(stats));
      assert.equal(stats.redisErrors, 0, lines.join(''));
      const cacheLines = lines.filter((line) => line.includes('response cache'));
      assert.equal(cacheLines.length, 1, cacheLines.join(''));
      assert.match(cacheLines[0]!, /refuses stores/);
      assert.match(cacheLines[0]!, /OOM/);
    } finally {
      server.kill('SIGKILL');
      await app?.close();
      await h.close();
    }
  });
});
