/**
 * Reads over a streaming replica, on real servers: a private primary and a hot standby
 * made from it with pg_basebackup, the service built with `db.replicas` naming the standby.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { configWith, defaultConfig } from '../../src/config.js';
import type { Db, PoolReport } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { openPostgres } from '../../src/db/postgres.js';
import { SetupLoader } from '../../src/ledgerSetup/loader.js';
import { createLogger } from '../../src/logger.js';
import { parseJson } from '../../tools/conformance/spec.js';
import { createPrivatePostgres, createStandby, privatePostgresSkipReason, type PrivatePostgres } from '../support/privatePostgres.js';

const MAX_LAG_MS = 1500;
const CHECK_INTERVAL_MS = 200;
/** how long a state change may take to show (generous: two cores, loaded) */
const WITHIN_MS = 15_000;

const block = (index: number) => ({
  index,
  consensus_start: 1000 + 10 * index,
  consensus_end: 1005 + 10 * index,
  hash: String(index % 10).repeat(96),
});

describe('reads over a streaming replica (private primary and standby)', { skip: privatePostgresSkipReason(), timeout: 90_000 }, () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let owner: Db;
  let db: Db;
  let app: FastifyInstance;
  let config = defaultConfig();

  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    return {
      status: res.statusCode,
      body: String(res.headers['content-type'] ?? '').includes('json') ? parseJson(res.body) : res.body,
    } as { status: number; body: any };
  };
  const pool = (name: string): PoolReport => db.pools!().find((p) => p.name === name)!;
  const sql = async (server: PrivatePostgres, text: string, database = 'lqs') => {
    const client = new pg.Client({ connectionString: server.adminUrl.replace(/\/postgres$/, '/' + database) });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  const until = async (what: string, test: () => Promise<boolean> | boolean, withinMs = WITHIN_MS): Promise<number> => {
    const started = Date.now();
    while (!(await test())) {
      if (Date.now() - started > withinMs) assert.fail(`not within ${withinMs} ms: ${what}`);
      await sleep(100);
    }
    return Date.now() - started;
  };
  const load = (setup: Record<string, unknown>) => new SetupLoader(owner, config).load(setup);

  before(async () => {
    primary = await createPrivatePostgres();
    standby = await createStandby(primary);
    await sql(primary, 'create database lqs', 'postgres');
    const primaryUrl = primary.adminUrl.replace(/\/postgres$/, '/lqs');
    owner = await openPostgres({ url: primaryUrl, poolSize: 2, statementTimeoutMs: 20_000, connectionTimeoutMs: 5_000 });
    await migrate(owner);
    await load({ accounts: [{ num: 8 }], recordFiles: [block(0), block(1)] });
    // the standby has the database once it has replayed its creation
    await until(
      'the standby has the database',
      async () => (await sql(standby, 'select 1 from pg_database where datname = $$lqs$$', 'postgres')).length === 1,
    );

    config = configWith({
      db: {
        url: primaryUrl,
        replicas: [standby.adminUrl.replace(/\/postgres$/, '/lqs')],
        maxReplicaLagMs: MAX_LAG_MS,
        replicaCheckIntervalMs: CHECK_INTERVAL_MS,
        connectionTimeoutMs: 2_000,
        poolSize: 4,
        migrate: false,
      },
      cache: { enabled: false },
    });
    const started = Date.now();
    db = await openDatabase(config, undefined, (report, previous, err) =>
      console.log(
        `+${Date.now() - started} ms ${report.name}: ${previous} → ${report.state} (lag ${report.lagMs} ms${err ? `; ${(err as Error).message}` : ''})`,
      ),
    );
    app = await buildApp({ config, db, clock: systemClock, logger: createLogger('silent') });
    await app.ready();
  });

  after(async () => {
    await app?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await owner?.close().catch(() => undefined);
    standby?.destroy();
    primary?.destroy();
  });

  it('serves reads from the standby, and a row written on the primary once replayed', async () => {
    assert.deepEqual(
      db.pools!().map((p) => [p.name, p.state]),
      [
        ['primary', 'up'],
        ['replica1', 'up'],
      ],
    );
    const before = { primary: pool('primary').queries, replica: pool('replica1').queries };
    for (let i = 0; i < 5; i++) assert.equal((await get('/api/v1/accounts/0.0.8')).status, 200);
    assert.ok(pool('replica1').queries >= before.replica + 5, 'the account reads ran on the standby');
    assert.equal(pool('primary').queries, before.primary, 'none on the primary');
    const onStandby = await sql(
      standby,
      `select count(*)::int as n from pg_stat_activity where application_name = 'ledger-query-service'`,
      'postgres',
    );
    assert.ok(onStandby[0].n >= 1, 'the service holds connections to the standby');

    // the block lookups go to the primary (db.primaryReads)
    assert.equal((await get('/api/v1/blocks/1')).status, 200);
    assert.ok(pool('primary').queries > before.primary, 'the block lookup ran on the primary');

    await load({ accounts: [{ num: 9 }] });
    const ms = await until('the new account is served', async () => (await get('/api/v1/accounts/0.0.9')).status === 200);
    console.log(`a row written on the primary was served from the standby after ${ms} ms`);
    const readiness = await get('/health/readiness');
    assert.equal(readiness.status, 200);
    assert.equal(readiness.body.status, 'UP');
    assert.deepEqual(
      readiness.body.pools.map((p: PoolReport) => [p.name, p.state]),
      [
        ['primary', 'up'],
        ['replica1', 'up'],
      ],
    );
  });

  it('takes a standby whose replay is paused beyond the lag bound out of the rotation, and the newest block is still served', async () => {
    await sql(standby, 'select pg_wal_replay_pause()');
    try {
      await load({ accounts: [{ num: 10 }], recordFiles: [block(2)] });
      const ms = await until('the standby is lagging', () => pool('replica1').state === 'lagging');
      console.log(`paused standby out of the rotation after ${ms} ms (lag ${pool('replica1').lagMs} ms, bound ${MAX_LAG_MS} ms)`);
      const newest = await get('/api/v1/blocks?order=desc&limit=1');
      assert.equal(newest.status, 200);
      assert.equal(Number(newest.body.blocks[0].number), 2, 'the newest block, from the primary');
      assert.equal((await get('/api/v1/blocks/2')).status, 200);
      const replicaQueries = pool('replica1').queries;
      assert.equal((await get('/api/v1/accounts/0.0.10')).status, 200, 'reads go to the primary meanwhile');
      assert.equal(pool('replica1').queries, replicaQueries);
      const readiness = await get('/health/readiness');
      assert.equal(readiness.status, 200);
      assert.equal(readiness.body.pools[1].state, 'lagging');
      const metrics = (await get('/swagger/metrics/')).body as string;
      assert.match(metrics, /lqs_db_pool_up\{pool="replica1"\} 0/);
      assert.match(metrics, /lqs_db_pool_up\{pool="primary"\} 1/);
      assert.match(metrics, /lqs_db_replica_lag_milliseconds\{pool="replica1"\} \d+/);
    } finally {
      await sql(standby, 'select pg_wal_replay_resume()');
    }
    const ms = await until('the standby is back in rotation', () => pool('replica1').state === 'up');
    console.log(`resumed standby back in rotation after ${ms} ms`);
    const replicaQueries = pool('replica1').queries;
    assert.equal((await get('/api/v1/accounts/0.0.10')).status, 200);
    assert.ok(pool('replica1').queries > replicaQueries);
  });

  it('loses at most the request in flight when the standby stops, then takes it back when it returns', async () => {
    const statuses: number[] = [];
    let running = true;
    const traffic = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running) statuses.push((await get('/api/v1/accounts/0.0.8')).status);
      }),
    );
    try {
      await sleep(300);
      standby.stop();
      const ms = await until('the stopped standby is out of the rotation', () => pool('replica1').state === 'down');
      console.log(`stopped standby out of the rotation after ${ms} ms`);
      await sleep(500);
    } finally {
      running = false;
      await traffic;
    }
    const failed = statuses.filter((s) => s !== 200);
    console.log(`${statuses.length} requests while the standby stopped, ${failed.length} failed (${JSON.stringify(failed)})`);
    assert.ok(failed.length <= 1, `at most the one in flight failed: ${JSON.stringify(failed)}`);
    assert.equal((await get('/health/readiness')).status, 200);

    standby.start();
    // until its WAL receiver streams again (wal_retrieve_retry_interval, 5 s) it reports the age of
    // its last replayed transaction as lag: out of the rotation as lagging for some seconds
    const ms = await until('the restarted standby is back in rotation', () => pool('replica1').state === 'up', 2 * WITHIN_MS);
    console.log(`restarted standby back in rotation after ${ms} ms`);
    const replicaQueries = pool('replica1').queries;
    assert.equal((await get('/api/v1/accounts/0.0.8')).status, 200);
    assert.ok(pool('replica1').queries > replicaQueries, 'reads reach the standby again');
  });

  it('keeps serving reads from the standby when the primary stops', async () => {
    primary.stop();
    for (let i = 0; i < 5; i++) assert.equal((await get('/api/v1/accounts/0.0.10')).status, 200);
    // the block lookups fall back to the standby while the primary cannot be reached
    const newest = await get('/api/v1/blocks?order=desc&limit=1');
    assert.equal(newest.status, 200);
    assert.equal(Number(newest.body.blocks[0].number), 2);
    assert.equal((await get('/health/readiness')).status, 200, 'ready: reads can be served');
    await until('the primary is reported down', () => pool('primary').state === 'down');
    assert.equal(pool('replica1').state, 'up');
  });
});
