import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Harness } from '../../tools/testApp/harness.js';
import { errorOf, get } from '../support/harness.js';
import { openFaultHarness } from '../support/faultHarness.js';
import { privatePostgresSkipReason, type PrivatePostgres } from '../support/privatePostgres.js';

const POOL_SIZE = 4;
const STATEMENT_TIMEOUT_MS = 400;

describe('database faults on a private PostgreSQL server', { skip: privatePostgresSkipReason() }, () => {
  let server: PrivatePostgres;
  let harness: Harness;
  let databaseUrl: string;

  const appConnections = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select pid, wait_event_type from pg_stat_activity where application_name = 'ledger-query-service'`,
      );
      return rows as { pid: number; wait_event_type: string | null }[];
    } finally {
      await client.end();
    }
  };

  before(async () => {
    ({ server, harness, databaseUrl } = await openFaultHarness({
      size: POOL_SIZE,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      connectionTimeoutMs: 1000,
    }));
  });

  after(async () => {
    await harness?.close().catch(() => undefined);
    server?.destroy();
  });

  it('fails fast with 503 while the server is down, reports not ready, and recovers by itself', async () => {
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200);
    server.stop();

    const started = Date.now();
    const down = await Promise.all(Array.from({ length: 20 }, () => get(harness, '/api/v1/blocks')));
    assert.ok(Date.now() - started < 3000, 'requests fail fast');
    for (const res of down) {
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, errorOf('Service unavailable'));
    }
    const readiness = await get(harness, '/health/readiness');
    assert.equal(readiness.status, 503);
    assert.deepEqual(readiness.body, { status: 'DOWN' });
    assert.equal((await get(harness, '/health/liveness')).status, 200);

    server.start();
    const restarted = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - restarted < 10_000) {
      status = (await get(harness, '/api/v1/blocks')).status;
      if (status !== 200) await sleep(100);
    }
    const recoveryMs = Date.now() - restarted;
    assert.equal(status, 200, 'recovered');
    assert.ok(recoveryMs < 5000, `recovered in ${recoveryMs} ms`);
    console.log(`recovery after restart: ${recoveryMs} ms`);
    assert.equal((await get(harness, '/health/readiness')).status, 200);
    assert.ok((await appConnections()).length <= POOL_SIZE, 'no leaked connections');
  });

  it('answers only 200 or 503 under load while the server goes away and comes back', async () => {
    const statuses = new Map<number, number>();
    let running = true;
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (running) {
          const { status } = await get(harness, '/api/v1/blocks?limit=2');
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          // inject involves no socket, and while the pool backs off a refused request involves no
          // I/O either: without a turn of the event loop the timers that end this load never run
          await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    );
    await sleep(200);
    server.stop();
    await sleep(500);
    server.start();
    await sleep(1500);
    running = false;
    await load;
    assert.deepEqual(
      [...statuses.keys()].filter((s) => s !== 200 && s !== 503),
      [],
      JSON.stringify([...statuses]),
    );
    assert.ok((statuses.get(503) ?? 0) > 0 && (statuses.get(200) ?? 0) > 0, JSON.stringify([...statuses]));
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200);
    assert.ok((await appConnections()).length <= POOL_SIZE, 'no leaked connections');
  });

  it('a statement over the timeout gets 503 and frees its connection', async () => {
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table record_file in access exclusive mode');
      const started = Date.now();
      const res = await get(harness, '/api/v1/blocks');
      assert.equal(res.status, 503);
      assert.ok(Date.now() - started < STATEMENT_TIMEOUT_MS + 2000);
      await locker.query('commit');
    } finally {
      await locker.end();
    }
    const after = await Promise.all(Array.from({ length: POOL_SIZE * 3 }, () => get(harness, '/api/v1/blocks')));
    assert.deepEqual(
      after.map((r) => r.status),
      Array(POOL_SIZE * 3).fill(200),
    );
  });

  it('a connection killed mid-query gives 503 for that request and is replaced', async () => {
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table record_file in access exclusive mode');
      const pending = get(harness, '/api/v1/blocks');
      let waiting: { pid: number }[] = [];
      for (let i = 0; i < 50 && waiting.length === 0; i++) {
        await sleep(10);
        waiting = (await appConnections()).filter((c) => c.wait_event_type === 'Lock');
      }
      assert.equal(waiting.length, 1, 'the request waits on the lock');
      await locker.query('select pg_terminate_backend($1)', [waiting[0]!.pid]);
      const res = await pending;
      assert.equal(res.status, 503);
      await locker.query('commit');
    } finally {
      await locker.end();
    }
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200);
    assert.ok((await appConnections()).length <= POOL_SIZE);
  });

  it('a connection killed inside a transaction rejects that transaction, and the pool goes on', async () => {
    // the outcome is taken at once: the rejection may come before the test awaits it
    const outcome = harness.db
      .transaction(async (tx) => {
        await tx.query(`select set_config('statement_timeout', '10000', true)`);
        return tx.query('select pg_sleep(10) as slept');
      })
      .then(
        () => null,
        (err: Error) => err,
      );
    let sleeping: { pid: number }[] = [];
    for (let i = 0; i < 50 && sleeping.length === 0; i++) {
      await sleep(10);
      sleeping = (await appConnections()).filter((c) => c.wait_event_type === 'Timeout');
    }
    assert.equal(sleeping.length, 1, 'the transaction is running');
    const killer = new pg.Client({ connectionString: databaseUrl });
    await killer.connect();
    try {
      await killer.query('select pg_terminate_backend($1)', [sleeping[0]!.pid]);
    } finally {
      await killer.end();
    }
    assert.match(String((await outcome)?.message), /terminat/);
    assert.equal((await get(harness, '/api/v1/blocks')).status, 200);
    assert.ok((await appConnections()).length <= POOL_SIZE);
  });
});
