import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Harness } from '../../tools/testApp/harness.js';
import { openPostgres, RECONNECT_MAX_MS } from '../../src/db/postgres.js';
import { get } from '../support/harness.js';
import { openFaultHarness } from '../support/faultHarness.js';
import type { PrivatePostgres } from '../support/privatePostgres.js';

describe('database events never end the process', () => {
  let server: PrivatePostgres;
  let harness: Harness;
  let databaseUrl: string;

  before(async () => {
    ({ server, harness, databaseUrl } = await openFaultHarness({ size: 4, statementTimeoutMs: 2000, connectionTimeoutMs: 1000 }));
  });

  after(async () => {
    await harness?.close().catch(() => undefined);
    server?.destroy();
  });

  it('survives its connections being terminated over and over, checked out, idle or pinging', async () => {
    const killer = new pg.Client({ connectionString: databaseUrl });
    await killer.connect();
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    let running = true;
    const urls = ['/api/v1/blocks?limit=2', '/health/readiness', '/api/v1/blocks/1', '/health/liveness'];
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; running; i++) {
          const url = urls[(worker + i) % urls.length]!;
          const res = await get(harness, url);
          count(`${url.split('?')[0]!.replace(/\/1$/, '/{n}')} ${res.status}`);
          if (res.status === 503) assert.equal(res.headers['retry-after'], '1', `${url}: 503 without Retry-After`);
          // the Db's own paths, not only the routes': exec and transactions
          if (worker === 0) await harness.db.exec('select 1').catch(() => count('exec failed'));
          if (worker === 1) await harness.db.transaction((tx) => tx.query('select 1')).catch(() => count('transaction failed'));
          // a request refused during the backoff involves no I/O: let the killer's timers run
          await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    );
    let kills = 0;
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const { rowCount } = await killer.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'ledger-query-service' and pid <> pg_backend_pid()`,
      );
      kills += rowCount ?? 0;
      await sleep(40);
    }
    running = false;
    await load;
    await killer.end();
    const seen = [...statuses.keys()];
    assert.deepEqual(
      seen.filter((k) => !/ (200|503)$/.test(k) && !k.endsWith('failed')),
      [],
      JSON.stringify([...statuses]),
    );
    assert.equal(
      statuses.get('/health/liveness 200') !== undefined && !seen.includes('/health/liveness 503'),
      true,
      'liveness is always 200',
    );
    assert.ok(kills > 10, `terminated ${kills} connections`);
    console.log(`terminated ${kills} backends; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200, 'serves again');
    assert.equal((await get(harness, '/health/readiness')).status, 200);
  });

  it('backs off reconnection while the server is down and recovers within the bound once it accepts again', async () => {
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200);
    server.stop();
    // the pool learns of the outage, then its pauses grow to the maximum
    const downUntil = Date.now() + 2000;
    let down503 = 0;
    while (Date.now() < downUntil) {
      const res = await get(harness, '/api/v1/blocks');
      assert.equal(res.status, 503);
      assert.equal(res.headers['retry-after'], '1');
      down503++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    server.start();
    const accepting = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - accepting < 10_000) {
      status = (await get(harness, '/api/v1/blocks')).status;
      if (status !== 200) await sleep(20);
    }
    const recoveryMs = Date.now() - accepting;
    console.log(`${down503} requests answered 503 in 2 s of outage; first 200 ${recoveryMs} ms after the server accepted connections`);
    assert.equal(status, 200);
    assert.ok(recoveryMs < 1000, `recovered in ${recoveryMs} ms`);
  });
});

describe('reconnection backoff', () => {
  let refuser: Server;
  let attempts = 0;
  const sockets = new Set<Socket>();

  before(async () => {
    // accepts and drops every connection: each one is a failed attempt of the pool
    refuser = createServer((socket) => {
      attempts++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.destroy();
    });
    await new Promise<void>((resolve) => refuser.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => refuser.close(resolve));
  });

  it('makes a bounded number of attempts however many queries fail', async () => {
    const { port } = refuser.address() as { port: number };
    const db = await openPostgres({
      url: `postgres://nobody@127.0.0.1:${port}/none`,
      poolSize: 8,
      statementTimeoutMs: 1000,
      connectionTimeoutMs: 1000,
    });
    let failures = 0;
    const seconds = 2;
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < until) {
          await db.query('select 1').then(
            () => assert.fail('the server accepts nothing'),
            () => failures++,
          );
          await sleep(1);
        }
      }),
    );
    await db.close();
    // the first wave (the pool's 8 slots, then the 8 queries queued behind them), then one probe
    // after pauses of 50, 100, 200, 400 ms and RECONNECT_MAX_MS each (without backoff: ~1,900)
    const bound = 2 * 8 + 4 + Math.ceil((seconds * 1000) / RECONNECT_MAX_MS);
    console.log(`${failures} failed queries, ${attempts} connection attempts in ${seconds} s`);
    assert.ok(failures > 100, `${failures} queries failed`);
    assert.ok(attempts <= bound, `${attempts} connection attempts (at most ${bound})`);
  });
});
