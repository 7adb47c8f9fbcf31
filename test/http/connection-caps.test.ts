/**
 * The public listener's connection caps over real sockets: a thousand idle connections from one
 * address do not shut out another, the total cap holds, refusals are logged in bounded volume and
 * counted; an idle keep-alive connection is closed after server.keepAliveTimeoutMs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { SettableClock } from '../../src/clock.js';
import { type ConfigOverrides, configWith } from '../../src/config.js';
import { DatabaseUnavailableError, type Db } from '../../src/db/db.js';
import { createLogger } from '../../src/logger.js';

/** The health and metrics routes need no database: one that is never reached. */
const unreachable = () => Promise.reject(new DatabaseUnavailableError('not used by these tests'));
const noDatabase: Db = {
  backend: 'postgres',
  query: unreachable,
  exec: unreachable,
  transaction: unreachable,
  ping: unreachable,
  refreshTypes: unreachable,
  close: async () => undefined,
};

interface Listening {
  app: FastifyInstance;
  port: number;
  lines: () => Record<string, unknown>[];
}

async function listen(server: ConfigOverrides['server'], connectionLogIntervalMs?: number): Promise<Listening> {
  const raw: string[] = [];
  const logger = createLogger('warn', { write: (line: string) => void raw.push(line) });
  const app = await buildApp({
    config: configWith({ server, cache: { enabled: false } }),
    db: noDatabase,
    clock: new SettableClock(),
    logger,
    connectionLogIntervalMs,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port, lines: () => raw.map((l) => JSON.parse(l)) };
}

interface Client {
  socket: Socket;
  closed: boolean;
  received: number;
}

/** A connection from `localAddress` (any of 127/8 reaches the loopback listener) that sends nothing. */
async function idle(port: number, localAddress: string): Promise<Client> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  const client: Client = { socket, closed: false, received: 0 };
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => (client.received += chunk.length));
  socket.on('close', () => (client.closed = true));
  await once(socket, 'connect');
  return client;
}

async function waitFor(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  for (const start = Date.now(); !test(); await sleep(20)) {
    if (Date.now() - start > timeoutMs) assert.fail(`timed out waiting for ${what}`);
  }
}

/** One GET on a connection of its own from `localAddress`; the status, or 0 when the connection closed unanswered. */
async function status(port: number, localAddress: string, path = '/health/liveness'): Promise<{ status: number; text: string }> {
  const client = await idle(port, localAddress);
  let text = '';
  client.socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  client.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  await waitFor(() => client.closed, 'the answer');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

describe('connection caps', () => {
  let server: Listening;
  const flood: Client[] = [];
  before(async () => {
    server = await listen({ maxConnections: 100, maxConnectionsPerAddress: 50, requestTimeoutMs: 60_000 }, 1_000);
  });
  after(async () => {
    for (const client of flood) client.socket.destroy();
    await server?.app.close();
  });

  it('keeps 1,000 idle connections from one address from shutting out another, within the per-address cap', async () => {
    const started = Date.now();
    for (let i = 0; i < 1000; i++) flood.push(await idle(server.port, '127.0.0.1'));
    await waitFor(() => flood.filter((c) => c.closed).length === 950, 'the connections beyond the per-address cap to be closed');
    await sleep(200);
    assert.equal(flood.filter((c) => !c.closed).length, 50, 'the first 50 stay open');
    assert.ok(
      flood.every((c) => c.received === 0),
      'refused at once: nothing written',
    );
    // another address is served while the first holds its 50
    assert.equal((await status(server.port, '127.0.0.2')).status, 200);

    // bounded log: the first refusal at once, then one line per interval (1 s here) with the counts
    await sleep(1_100);
    const refusals = server.lines().filter((l) => String(l.msg).startsWith('connection'));
    const [first, ...summaries] = refusals;
    assert.deepEqual(
      { msg: first!.msg, reason: first!.reason, clientAddress: first!.clientAddress, open: first!.open },
      { msg: 'connection refused: at the connection cap', reason: 'address', clientAddress: '127.0.0.1', open: 50 },
    );
    const elapsedSeconds = (Date.now() - started) / 1000;
    assert.ok(summaries.length >= 1 && summaries.length <= Math.ceil(elapsedSeconds) + 1, JSON.stringify(refusals));
    for (const line of summaries) {
      assert.equal(line.msg, 'connections refused: at the connection cap');
      assert.equal(line.busiestAddress, '127.0.0.1');
      assert.equal(line.maxConnectionsPerAddress, 50);
    }
    assert.equal(
      summaries.reduce((sum, l) => sum + (l.atAddressCap as number), 0),
      949,
      'every refusal after the first is counted in the summaries',
    );
  });

  it('holds the total cap, whatever the addresses, and counts the refusals in the metrics', async () => {
    const others: Client[] = [];
    for (let i = 0; i < 49; i++) others.push(await idle(server.port, '127.0.0.3'));
    // 50 + 49 open: one slot left
    await sleep(100);
    const last = await idle(server.port, '127.0.0.4');
    const beyond = await idle(server.port, '127.0.0.5');
    await waitFor(() => beyond.closed, 'the connection beyond the total cap to be closed');
    await sleep(100);
    assert.equal(last.closed, false);
    assert.equal(
      others.some((c) => c.closed),
      false,
    );
    for (const client of [...others, last, ...flood]) client.socket.destroy();
    await sleep(200);
    const scrape = await status(server.port, '127.0.0.6', '/swagger/metrics/');
    assert.equal(scrape.status, 200);
    assert.match(scrape.text, /^lqs_connections_refused_total\{reason="address"\} 950$/m);
    assert.match(scrape.text, /^lqs_connections_refused_total\{reason="total"\} 1$/m);
    assert.match(scrape.text, /^lqs_connections_open 1$/m, 'the scrape itself');
  });
});

describe('idle keep-alive connections', () => {
  let server: Listening;
  before(async () => {
    server = await listen({ keepAliveTimeoutMs: 300 });
  });
  after(async () => server?.app.close());

  it('are closed by the server after server.keepAliveTimeoutMs', async () => {
    const client = await idle(server.port, '127.0.0.1');
    let text = '';
    client.socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    client.socket.write('GET /health/liveness HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => text.includes('"status":"UP"'), 'the answer');
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /\r\nconnection: keep-alive\r\n/i);
    // the default (5 s) would leave it open well past this wait
    await waitFor(() => client.closed, 'the idle connection to be closed', 4_000);
  });
});
