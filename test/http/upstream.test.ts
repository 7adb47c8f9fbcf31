/** `upstream.url`: the paths this service does not serve forwarded to a stub of the reference REST service. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { ConfigError, configWith } from '../../src/config.js';
import { freePort } from '../support/privatePostgres.js';
import { errorOf, get, useHarness } from '../support/harness.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stub upstream: records every request; `/slow` paths answer after 5 s, the others at once. */
async function stubUpstream(): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=7', 'x-upstream': 'stub' });
        res.end(JSON.stringify({ upstream: true, url: req.url }));
      };
      if (req.url?.startsWith('/slow')) setTimeout(answer, 5_000).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe('upstream: the paths this service does not serve, forwarded', () => {
  const harness = useHarness();
  let upstream: Awaited<ReturnType<typeof stubUpstream>>;

  before(async () => {
    upstream = await stubUpstream();
    await harness().prepare({});
    await harness().configure({ upstream: { url: upstream.url, timeoutMs: 300 } });
  });
  after(() => {
    upstream?.server.closeAllConnections();
    upstream?.server.close();
  });

  it('forwards the method, path, query string, headers and request id, and passes the answer on as it came', async () => {
    upstream.seen.length = 0;
    const res = await get(harness(), '/api/v1/transactions?account.id=0.0.2&limit=2&order=asc', {
      'x-request-id': 'trace-123',
      'x-custom': 'kept',
      accept: 'application/json',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { upstream: true, url: '/api/v1/transactions?account.id=0.0.2&limit=2&order=asc' });
    assert.equal(res.headers['x-upstream'], 'stub');
    assert.equal(res.headers['cache-control'], 'public, max-age=7', "the upstream's Cache-Control, not this service's");
    assert.equal(res.headers['x-request-id'], 'trace-123');
    assert.equal(upstream.seen.length, 1);
    const [seen] = upstream.seen;
    assert.equal(seen!.method, 'GET');
    assert.equal(seen!.url, '/api/v1/transactions?account.id=0.0.2&limit=2&order=asc');
    assert.equal(seen!.headers['x-custom'], 'kept');
    assert.equal(seen!.headers['x-request-id'], 'trace-123');
  });

  it('passes on the id it gave a request that came without one', async () => {
    upstream.seen.length = 0;
    const res = await get(harness(), '/api/v1/network/supply');
    assert.equal(res.status, 200);
    const id = res.headers['x-request-id'];
    assert.ok(typeof id === 'string' && id !== '');
    assert.equal(upstream.seen[0]?.headers['x-request-id'], id);
  });

  it('forwards a body, and the reference endpoints next to its own routes (the logs endpoints)', async () => {
    upstream.seen.length = 0;
    const call = await harness().app.inject({
      method: 'POST',
      url: '/api/v1/contracts/call',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ data: '0x01', to: '0x00000000000000000000000000000000000003e9' }),
    });
    assert.equal(call.statusCode, 200, call.body);
    for (const path of [
      '/api/v1/contracts/results/logs?topic0=0x01',
      '/api/v1/contracts/0.0.5/results/logs',
      '/api/v1/accounts/0.0.2/tokens',
    ]) {
      const res = await get(harness(), path);
      assert.equal(res.status, 200, path);
      assert.equal(res.body.url, path);
    }
    assert.deepEqual(
      upstream.seen.map((s) => [s.method, s.url]),
      [
        ['POST', '/api/v1/contracts/call'],
        ['GET', '/api/v1/contracts/results/logs?topic0=0x01'],
        ['GET', '/api/v1/contracts/0.0.5/results/logs'],
        ['GET', '/api/v1/accounts/0.0.2/tokens'],
      ],
    );
    assert.deepEqual(JSON.parse(upstream.seen[0]!.body), { data: '0x01', to: '0x00000000000000000000000000000000000003e9' });
  });

  it('answers its own paths here, their 400s and 404s included', async () => {
    upstream.seen.length = 0;
    const own: [string, number][] = [
      ['/api/v1/blocks', 200],
      ['/api/v1/blocks?limit=x', 400],
      ['/api/v1/blocks/notablock', 400],
      ['/api/v1/blocks/999', 404],
      ['/api/v1/accounts/0.0.999', 404],
      ['/api/v1/accounts/bad!/nfts', 400],
      ['/api/v1/contracts/results/0.0.2-1700000000-000000001', 404],
      ['/api/v1/contracts/0.0.5/results/1700000000.000000001', 404],
      ['/health/liveness', 200],
      ['/health/readiness', 200],
      ['/swagger/metrics/', 200],
      ['/api/v1/docs/openapi.yml', 200],
    ];
    for (const [path, status] of own) {
      const res = await get(harness(), path);
      assert.equal(res.status, status, `${path}: ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(upstream.seen, [], 'nothing forwarded');
  });

  it("never keeps the upstream's answers in the response cache", async () => {
    await harness().configure({ upstream: { url: upstream.url, timeoutMs: 300 }, cache: { enabled: true } });
    try {
      upstream.seen.length = 0;
      for (let i = 0; i < 2; i++) assert.equal((await get(harness(), '/api/v1/transactions?limit=1')).status, 200);
      assert.equal(upstream.seen.length, 2, 'both asked upstream');
      const stats = harness().app.responseCache!.snapshot();
      assert.equal(stats.misses, 0, 'not looked up');
      assert.equal(stats.stores, 0);
      assert.equal(stats.hits, 0);
    } finally {
      await harness().configure({ upstream: { url: upstream.url, timeoutMs: 300 } });
    }
  });

  it('answers 502 in the error envelope when the upstream cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await harness().configure({ upstream: { url: closed, timeoutMs: 300 } });
    try {
      const res = await get(harness(), '/api/v1/transactions');
      assert.equal(res.status, 502);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.deepEqual(res.body, errorOf('Bad gateway'));
    } finally {
      await harness().configure({ upstream: { url: upstream.url, timeoutMs: 300 } });
    }
  });

  it('answers 504 in the error envelope when the upstream does not answer within upstream.timeoutMs', async () => {
    const res = await get(harness(), '/slow/api/v1/transactions');
    assert.equal(res.status, 504);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.body, errorOf('Gateway timeout'));
  });

  it('refuses an upstream.url that is not the origin of an HTTP service', () => {
    for (const url of ['ftp://mirror:5551', 'http://mirror:5551/api/v1', 'mirror:5551', 'http://mirror:5551?x=1']) {
      assert.throws(() => configWith({ upstream: { url } }), ConfigError, url);
    }
    assert.equal(configWith({ upstream: { url: 'https://mirror.example:8443' } }).upstream.url, 'https://mirror.example:8443');
  });
});

describe('upstream: unset', () => {
  const harness = useHarness();

  it('answers 404 for the paths this service does not serve', async () => {
    await harness().prepare({});
    const res = await get(harness(), '/api/v1/transactions?limit=2');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, errorOf('Not found'));
  });
});
