/**
 * Protocol edges over a real listening socket (raw writes): absolute-form targets, the Host rules
 * of RFC 9112, Node's own refusals in the error envelope with a request id, HEAD consistent with
 * GET (compressed length included), and Vary on every compressible 200.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { gunzipSync } from 'node:zlib';
import { startListeners, type Listeners } from '../../src/server.js';
import { createLogger } from '../../src/logger.js';
import { type ConfigOverrides, configWith } from '../../src/config.js';
import { errorOf, useHarness } from '../support/harness.js';

interface RawAnswer {
  status: number;
  /** lower-case names; a header sent twice keeps both values, joined by a newline */
  headers: Record<string, string>;
  body: Buffer;
}

/** Writes `text` on a fresh connection and reads until the server closes it. */
async function raw(port: number, text: string): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  socket.write(text);
  const timer = setTimeout(() => socket.destroy(), 10_000);
  await once(socket, 'close');
  clearTimeout(timer);
  const data = Buffer.concat(chunks);
  const end = data.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: data.subarray(end + 4) };
}

const request = (target: string, headers: string[] = ['Host: lqs.test'], method = 'GET', version = 'HTTP/1.1') =>
  `${method} ${target} ${version}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`;

/** The headers that differ between two answers by nature (the date, a generated request id). */
function comparable(headers: Record<string, string>): Record<string, string> {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
  return rest;
}

function assertEnvelope(answer: RawAnswer, status: number, message: string) {
  assert.equal(answer.status, status);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.deepEqual(JSON.parse(answer.body.toString()), errorOf(message));
  assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, 'a request id');
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
}

describe('protocol edges over a listening socket', () => {
  const harness = useHarness();
  let listeners: Listeners;
  let cached: Listeners;
  const port = (l: Listeners) => Number(new URL(l.publicUrl).port);

  before(async () => {
    const h = harness();
    const start = 1_700_000_000_000_000_000n;
    await h.prepare({
      recordFiles: [1, 2, 3, 4, 5, 6].map((i) => ({
        index: i,
        consensus_start: String(start + BigInt(i) * 1000n),
        consensus_end: String(start + BigInt(i) * 1000n + 999n),
        hash: String(i).repeat(96),
      })),
    });
    const listen = (overrides: ConfigOverrides) =>
      startListeners({
        config: configWith(overrides, configWith({ port: 0, host: '127.0.0.1', admin: { enabled: false } }, h.config)),
        db: h.db,
        clock: h.clock,
        logger: createLogger('error', { write: () => undefined }),
      });
    listeners = await listen({ admin: { enabled: true, port: 0, host: '127.0.0.1', users: ['ops:pw'] } });
    cached = await listen({ cache: { enabled: true } });
  });
  after(async () => {
    await listeners?.close();
    await cached?.close();
  });

  it('answers an absolute-form target as its origin form: same links, Link and Cache-Control', async () => {
    const origin = await raw(port(listeners), request('/api/v1/blocks?limit=1'));
    const absolute = await raw(port(listeners), request('http://other.host/api/v1/blocks?limit=1'));
    assert.equal(origin.status, 200);
    assert.equal(absolute.status, 200);
    const next = JSON.parse(origin.body.toString()).links.next;
    assert.match(next, /^\/api\/v1\/blocks\?limit=1&block\.number=lt:\d+$/);
    assert.equal(JSON.parse(absolute.body.toString()).links.next, next);
    assert.equal(absolute.headers.link, `<${next}>; rel="next"`);
    assert.equal(absolute.headers['cache-control'], 'public, max-age=1');
    assert.deepEqual(comparable(absolute.headers), comparable(origin.headers));
  });

  it('refuses an HTTP/1.1 request without Host and any request with two, in the envelope with a request id', async () => {
    assertEnvelope(await raw(port(listeners), request('/api/v1/blocks', [])), 400, 'Bad request: missing Host header');
    assertEnvelope(
      await raw(port(listeners), request('/api/v1/blocks', ['Host: a.test', 'Host: b.test'])),
      400,
      'Bad request: more than one Host header',
    );
    assertEnvelope(
      await raw(port(listeners), request('/api/v1/blocks', ['Host: a.test', 'host: a.test'], 'GET', 'HTTP/1.0')),
      400,
      'Bad request: more than one Host header',
    );
    // the admin listener keeps the same rules
    const admin = Number(new URL(listeners.adminUrl!).port);
    assertEnvelope(await raw(admin, request('/change-log-level', [])), 400, 'Bad request: missing Host header');
    assert.equal((await raw(admin, request('/change-log-level'))).status, 401);
    // HTTP/1.0 has no Host requirement
    assert.equal((await raw(port(listeners), request('/api/v1/blocks?limit=1', [], 'GET', 'HTTP/1.0'))).status, 200);
  });

  it('answers in the envelope with a request id where Node or the router would answer bare: Expect, CONNECT, malformed, bad percent-encoding', async () => {
    assertEnvelope(
      await raw(port(listeners), request('/api/v1/blocks', ['Host: lqs.test', 'Expect: foo'])),
      417,
      'Expectation failed: only 100-continue is supported',
    );
    const tunnel = await raw(port(listeners), 'CONNECT other.host:443 HTTP/1.1\r\nHost: other.host:443\r\n\r\n');
    assertEnvelope(tunnel, 405, 'Method not allowed: CONNECT');
    assert.equal(tunnel.headers.allow, 'GET, HEAD, OPTIONS');
    assertEnvelope(await raw(port(listeners), 'GET /api/v1/blocks HTTP/1.1\r\nHost lqs.test\r\n\r\n'), 400, 'Bad request');
    assertEnvelope(await raw(port(listeners), request('/api/v1/blocks/%zz')), 400, 'Invalid URL: it is not correctly percent-encoded');
  });

  it('answers HEAD with the headers of GET, the compressed length included, and no body', async () => {
    for (const encoding of [[], ['Accept-Encoding: gzip']]) {
      const headers = ['Host: lqs.test', ...encoding];
      const get = await raw(port(listeners), request('/api/v1/blocks?limit=6', headers));
      const head = await raw(port(listeners), request('/api/v1/blocks?limit=6', headers, 'HEAD'));
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0, 'no body');
      assert.deepEqual(comparable(head.headers), comparable(get.headers));
      assert.equal(Number(head.headers['content-length']), get.body.length);
      if (encoding.length > 0) {
        assert.equal(get.headers['content-encoding'], 'gzip');
        assert.ok(gunzipSync(get.body).length > get.body.length);
      }
    }
  });

  it('sends Vary: accept-encoding once on every compressible 200: compressed, below the threshold, cached', async () => {
    const compressed = await raw(port(listeners), request('/api/v1/blocks?limit=6', ['Host: lqs.test', 'Accept-Encoding: gzip']));
    assert.equal(compressed.headers['content-encoding'], 'gzip');
    assert.equal(compressed.headers.vary, 'accept-encoding');
    const small = await raw(port(listeners), request('/api/v1/blocks/1', ['Host: lqs.test', 'Accept-Encoding: gzip']));
    assert.ok(small.body.length < 1024);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.headers.vary, 'accept-encoding');
    for (let i = 0; i < 2; i++) {
      const answer = await raw(port(cached), request('/api/v1/blocks/2'));
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.vary, 'accept-encoding', i === 0 ? 'stored' : 'served from the cache');
    }
    // errors and the scrape are not a representation that varies
    assert.equal((await raw(port(listeners), request('/api/v1/blocks?limit=x'))).headers.vary, undefined);
    assert.equal((await raw(port(listeners), request('/swagger/metrics/'))).headers.vary, undefined);
  });
});
