import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { SettableClock } from '../../src/clock.js';
import { type Config, type ConfigOverrides, configWith } from '../../src/config.js';
import { DatabaseUnavailableError, type Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../tools/testApp/pglite.js';
import { OutageLog } from '../../src/http/outageLog.js';
import { createLogger } from '../../src/logger.js';
import { errorOf } from '../support/harness.js';

interface Listening {
  app: FastifyInstance;
  db: Db;
  config: Config;
  port: number;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The public app on an ephemeral loopback port over an in-memory database (or `db`, which it leaves open). */
async function listen(settings: ConfigOverrides, db?: Db): Promise<Listening> {
  const config = configWith(settings);
  const database = db ?? (await openPglite(''));
  if (!db) await migrate(database);
  const raw: string[] = [];
  const logger = createLogger('warn', { write: (line: string) => void raw.push(line) });
  const app = await buildApp({ config, db: database, clock: new SettableClock(), logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    db: database,
    config,
    port: (app.server.address() as { port: number }).port,
    get lines() {
      return raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    close: async () => {
      await app.close();
      if (!db) await database.close();
    },
  };
}

/** Whether `data` holds a whole answer: its head and as many body bytes as its Content-Length says. */
function answered(data: string): boolean {
  const end = data.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(data.slice(0, end));
  return end >= 0 && length !== null && data.length - end - 4 >= Number(length[1]);
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** milliseconds from connecting to the server closing the connection */
  closedAfterMs: number;
}

/**
 * Sends `text` on a fresh connection and reads until the server closes it (or `waitMs`), or with
 * `untilAnswered` until one whole answer (its Content-Length) has arrived, as a kept-alive
 * connection stays open after it.
 */
async function rawRequest(
  port: number,
  text: string | ((socket: Socket) => void),
  waitMs = 10_000,
  untilAnswered = false,
): Promise<RawAnswer> {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let data = '';
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('latin1');
    if (untilAnswered && answered(data)) socket.destroy();
  });
  socket.on('error', () => undefined);
  if (typeof text === 'string') socket.write(text);
  else text(socket);
  const timer = setTimeout(() => socket.destroy(), waitMs);
  await once(socket, 'close');
  clearTimeout(timer);
  const [head = '', body = ''] = data.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, closedAfterMs: Date.now() - started };
}

function assertCommonHeaders(answer: { headers: Record<string, unknown> }, what: string) {
  assert.equal(answer.headers['access-control-allow-origin'], '*', `${what}: CORS`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
}

describe('every answer carries the envelope and the common headers, and echoes nothing', () => {
  let server: Listening;
  before(async () => {
    server = await listen({ server: { maxUrlLength: 256, maxHeaderBytes: 2048 } });
  });
  after(async () => server?.close());

  const secret = 'x'.repeat(300) + 'SECRET';
  const cases: [string, string, number, string][] = [
    [
      'a path over the router limit',
      `GET /api/v1/blocks/${secret} HTTP/1.1\r\nHost: a\r\n\r\n`,
      414,
      'URI too long: at most 256 characters',
    ],
    [
      'a query over the URL limit',
      `GET /api/v1/blocks?timestamp=${secret} HTTP/1.1\r\nHost: a\r\n\r\n`,
      414,
      'URI too long: at most 256 characters',
    ],
    [
      'a path not percent-decodable',
      `GET /api/v1/blocks/%zzSECRET HTTP/1.1\r\nHost: a\r\n\r\n`,
      400,
      'Invalid URL: it is not correctly percent-encoded',
    ],
    [
      'headers over the limit',
      `GET /api/v1/blocks HTTP/1.1\r\nHost: a\r\nX-Secret: ${'SECRET'.repeat(1000)}\r\n\r\n`,
      431,
      'Request headers too large: at most 2048 bytes',
    ],
    ['a malformed request line', `SECRET SECRET\r\n\r\n`, 400, 'Bad request'],
    ['a malformed header', `GET /api/v1/blocks HTTP/1.1\r\nHost: a\r\nSECRET\r\n\r\n`, 400, 'Bad request'],
    [
      'too many parameters',
      `GET /api/v1/blocks?${Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&')} HTTP/1.1\r\nHost: a\r\n\r\n`,
      414,
      'URI too long: at most 256 characters',
    ],
    ['an unknown route', `GET /SECRET HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`, 404, 'Not found'],
  ];
  for (const [name, request, status, message] of cases) {
    it(`for ${name}`, async () => {
      const answer = await rawRequest(server.port, request, 3000, true);
      assert.equal(answer.status, status, answer.body);
      assertCommonHeaders(answer, name);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(JSON.parse(answer.body), errorOf(message));
      assert.doesNotMatch(answer.body, /SECRET/);
    });
  }

  it('for too many query parameters within the URL limit', async () => {
    const longUrls = await listen({ server: { maxHeaderBytes: 2048 } }, server.db);
    try {
      const res = await fetch(
        `http://127.0.0.1:${longUrls.port}/api/v1/blocks?${Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&')}`,
      );
      assert.equal(res.status, 400);
      assertCommonHeaders({ headers: Object.fromEntries(res.headers) }, 'too many parameters');
      assert.deepEqual(await res.json(), errorOf('Too many query parameters: at most 100'));
    } finally {
      await longUrls.close();
    }
  });

  it('for the in-flight limit (503 with Retry-After), while both health routes still answer 200', async () => {
    const shedding = await listen({ server: { maxInFlight: 0 } }, server.db);
    try {
      const res = await fetch(`http://127.0.0.1:${shedding.port}/api/v1/blocks`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assertCommonHeaders({ headers: Object.fromEntries(res.headers) }, 'in-flight 503');
      assert.deepEqual(await res.json(), errorOf('Service unavailable'));
      for (const path of ['/health/liveness', '/health/readiness']) {
        const health = await fetch(`http://127.0.0.1:${shedding.port}${path}`);
        assert.equal(health.status, 200, path);
        assert.deepEqual(await health.json(), { status: 'UP' });
      }
    } finally {
      await shedding.close();
    }
  });

  it('for OPTIONS, a preflight or not (no plain-text 400)', async () => {
    for (const headers of [{}, { origin: 'https://example.org', 'access-control-request-method': 'GET' }] as Record<string, string>[]) {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/blocks`, { method: 'OPTIONS', headers });
      assert.equal(res.status, 204, JSON.stringify(headers));
      assertCommonHeaders({ headers: Object.fromEntries(res.headers) }, 'OPTIONS');
      assert.match(res.headers.get('access-control-allow-methods') ?? '', /GET/);
    }
  });

  it('for the docs page, with a Content-Security-Policy that forbids framing', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/docs`);
    assert.equal(res.status, 200);
    await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /object-src 'none'/);
    assertCommonHeaders({ headers: Object.fromEntries(res.headers) }, 'docs');
  });
});

describe('prototype-named query parameters', () => {
  let server: Listening;
  before(async () => {
    server = await listen({});
  });
  after(async () => server?.close());

  for (const [query, key] of [
    ['toString=1', 'tostring'],
    ['__proto__=1', '__proto__'],
    ['%5F%5Fproto%5F%5F=1', '__proto__'],
    ['__proto__[x]=1', '__proto__'],
    ['constructor=1', 'constructor'],
    ['hasOwnProperty=1', 'hasownproperty'],
    ['valueOf=1', 'valueof'],
  ] as const) {
    it(`rejects ?${query} like any unknown parameter`, async () => {
      for (const path of ['/api/v1/blocks', '/api/v1/blocks/1']) {
        const res = await server.app.inject(`${path}?${query}`);
        assert.equal(res.statusCode, 400, `${path}?${query}`);
        assert.deepEqual(res.json(), errorOf(`Unknown query parameter: ${key}`));
      }
    });
  }

  it('rejects constructor[prototype][x] as nested too deep, like any other such key', async () => {
    const res = await server.app.inject('/api/v1/blocks?constructor[prototype][x]=1');
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), errorOf('Input depth exceeded depth option of 1 and strictDepth is true'));
    assert.equal(({} as Record<string, unknown>).x, undefined, 'no prototype was touched');
  });
});

describe('slow clients', () => {
  let server: Listening;
  before(async () => {
    server = await listen({ server: { maxInFlight: 4, requestTimeoutMs: 1500, responseTimeoutMs: 1500, keepAliveTimeoutMs: 20_000 } });
  });
  after(async () => server?.close());

  it('cuts a connection whose headers do not arrive within requestTimeoutMs, with a 408 envelope', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const answer = await rawRequest(server.port, (socket) => {
      socket.write('GET /api/v1/blocks HTTP/1.1\r\nHost: a\r\n');
      let i = 0;
      trickle = setInterval(() => socket.writable && socket.write(`X-Slow-${i++}: 1\r\n`), 200);
    });
    clearInterval(trickle);
    assert.equal(answer.status, 408);
    assertCommonHeaders(answer, '408');
    assert.deepEqual(JSON.parse(answer.body), errorOf('Request timeout'));
    // checked every second: cut between the deadline and a check later (plus slack for a loaded machine)
    assert.ok(answer.closedAfterMs >= 1400 && answer.closedAfterMs < 1500 + 1000 + 2000, `closed after ${answer.closedAfterMs} ms`);
  });

  it('does not let clients that never read their responses hold in-flight slots, and drops them after responseTimeoutMs', async () => {
    // Each stalled client asks for the 1.6 MB bundle ten times, one request every 150 ms, and reads
    // nothing: a few responses fill the socket buffers, the next cannot be written. A paused client
    // notices no close, so the server's side of each connection is watched.
    const request = 'GET /api/v1/docs/static/swagger-ui-bundle.js HTTP/1.1\r\nHost: a\r\n\r\n';
    const readers: Socket[] = [];
    const closed: Promise<number>[] = [];
    let started = 0;
    const onConnection = (socket: Socket) => closed.push(once(socket, 'close').then(() => Date.now() - started));
    server.app.server.on('connection', onConnection);
    for (let i = 0; i < 6; i++) {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.pause();
      readers.push(socket);
    }
    started = Date.now();
    try {
      for (let round = 0; round < 10; round++) {
        for (const socket of readers) socket.write(request);
        await new Promise((resolve) => setTimeout(resolve, 150));
        if (round === 4) {
          // six stalled clients, four slots: the API still answers
          for (let i = 0; i < 5; i++) {
            const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/blocks`, { headers: { connection: 'close' } });
            assert.equal(res.status, 200);
            await res.text();
          }
        }
      }
      while (closed.length < 6) await new Promise((resolve) => setTimeout(resolve, 10));
      server.app.server.off('connection', onConnection);
      const stalled = closed.slice(0, 6);
      const closedAfter = await Promise.race([
        Promise.all(stalled),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000).unref()),
      ]);
      assert.ok(closedAfter !== null, 'every stalled connection was closed by the server');
      console.log(`stalled connections closed after ${closedAfter.join(', ')} ms`);
      // the bound after the first response that could not be written (within the 1.5 s of requests),
      // far before the keep-alive timeout (20 s) would close an idle connection
      for (const ms of closedAfter) assert.ok(ms >= 1500 && ms < 1500 + 1500 + 3000, `closed after ${ms} ms`);
    } finally {
      server.app.server.off('connection', onConnection);
      for (const socket of readers) socket.destroy();
    }
    assert.ok(
      server.lines.every((l) => l.level !== 50),
      'no error logged',
    );
  });
});

describe('database unavailable', () => {
  const failing: Db = {
    backend: 'postgres',
    query: () => Promise.reject(new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:1')),
    exec: () => Promise.reject(new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:1')),
    transaction: () => Promise.reject(new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:1')),
    ping: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    refreshTypes: () => Promise.reject(new DatabaseUnavailableError('connect ECONNREFUSED 127.0.0.1:1')),
    close: async () => undefined,
  };
  let server: Listening;
  before(async () => {
    server = await listen({}, failing);
  });
  after(async () => server?.close());

  it('answers 503 with Retry-After, readiness 503 DOWN, liveness 200, and logs one line, not one per request', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await server.app.inject('/api/v1/blocks');
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), errorOf('Service unavailable'));
      const ready = await server.app.inject('/health/readiness');
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.headers['retry-after'], '1');
      assert.deepEqual(ready.json(), { status: 'DOWN' });
      assert.equal((await server.app.inject('/health/liveness')).statusCode, 200);
    }
    const lines = server.lines;
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.msg, 'database unavailable');
    assert.equal(lines[0]!.err, undefined, 'no stack');
  });
});

describe('outage log', () => {
  it('logs the first failure at once, then one summary per interval with counts, then stops when quiet', async () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = new OutageLog({ warn: (obj, msg) => void lines.push({ obj: obj as Record<string, unknown>, msg }) }, 100);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    log.record('request', refused);
    for (let i = 0; i < 1000; i++) log.record('request', i % 2 ? refused : terminated);
    log.record('connection', terminated);
    log.record('readiness', refused);
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0], { obj: { event: 'request', reason: 'connect ECONNREFUSED 127.0.0.1:5432' }, msg: 'database unavailable' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(lines.length, 2);
    assert.equal(lines[1]!.msg, 'database still unavailable');
    assert.deepEqual(lines[1]!.obj, {
      intervalMs: 100,
      requests: 1000,
      connectionErrors: 1,
      readinessFailures: 1,
      reasons: { '57P01: terminating connection due to administrator command': 501, 'connect ECONNREFUSED 127.0.0.1:5432': 501 },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(lines.length, 2, 'a quiet interval logs nothing');
    log.record('request', refused);
    assert.equal(lines.length, 3, 'the next outage is told at once');
    log.close();
  });

  it('says once, at the end of the interval, that the database is available again, with the outage duration', async () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    let now = 1_000;
    const log = new OutageLog({ warn: (obj, msg) => void lines.push({ obj: obj as Record<string, unknown>, msg }) }, 100, () => now);
    log.available();
    assert.equal(lines.length, 0, 'no outage, no line');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    log.record('request', refused);
    now += 2_500;
    log.record('readiness', refused);
    log.record('request', refused);
    now += 1_000;
    log.available();
    now += 50;
    log.available();
    assert.equal(lines.length, 1, 'said at the end of the interval');
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(lines.slice(1), [
      { obj: { outageMs: 3_500, requests: 1, connectionErrors: 0, readinessFailures: 1 }, msg: 'database available again' },
    ]);
    // a failure after the database answered, within the interval: still unavailable, not up and down
    log.record('request', refused);
    assert.equal(lines.at(-1)!.msg, 'database unavailable', 'a new outage is told at once');
    log.available();
    log.record('connection', refused);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(lines.at(-1)!.msg, 'database still unavailable');
    assert.equal(lines.at(-1)!.obj.connectionErrors, 1);
    // answered and quiet through an interval: the end is said once
    log.available();
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(lines.at(-1)!.msg, 'database available again');
    const count = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    log.available();
    assert.equal(lines.length, count, 'nothing more');
    log.close();
  });
});
