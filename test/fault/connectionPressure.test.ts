/**
 * Connection pressure from outside the service on a private PostgreSQL server: other clients
 * taking every connection slot, and one table locked longer than the statement timeout. The
 * service answers on the connections it has and readiness reflects the database, not one table.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { Harness } from '../../tools/testApp/harness.js';
import { FAULT_BLOCKS } from '../support/faultHarness.js';
import { get } from '../support/harness.js';
import { createPrivatePostgres, privatePostgresSkipReason, type PrivatePostgres, takeEverySlot } from '../support/privatePostgres.js';

const POOL_SIZE = 4;
const STATEMENT_TIMEOUT_MS = 3000;
const LOCK_TIMEOUT_MS = 200;
const CONNECTION_TIMEOUT_MS = 1000;

/** Requests from `workers` concurrent loops over `urls` for `ms`; statuses counted per URL. */
async function load(harness: Harness, urls: string[], workers: number, ms: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = 0; Date.now() < until; i++) {
        const url = urls[(worker + i) % urls.length]!;
        const key = `${url} ${(await get(harness, url)).status}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }),
  );
  return counts;
}

describe('connection pressure on a private PostgreSQL server', { skip: privatePostgresSkipReason() }, () => {
  let server: PrivatePostgres;
  let harness: Harness | null = null;
  let lines: string[] = [];

  /** A fresh app and database on the server, its pool's log lines in `lines`; returns the database's URL. */
  const open = async (): Promise<[Harness, string]> => {
    lines = [];
    const logger = { info: (_: object, msg: string) => lines.push(msg), warn: (_: object, msg: string) => lines.push(msg) };
    harness = await Harness.open({
      backend: 'postgres',
      adminUrl: server.adminUrl,
      pool: {
        size: POOL_SIZE,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        lockTimeoutMs: LOCK_TIMEOUT_MS,
        connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
        logger,
      },
    });
    await harness.prepare({ ...FAULT_BLOCKS, accounts: [{ num: 3 }] });
    const [{ name }] = (await harness.db.query<{ name: string }>('select current_database() as name')) as [{ name: string }];
    return [harness, server.adminUrl.replace(/\/postgres$/, '/' + name)];
  };

  before(async () => {
    server = await createPrivatePostgres();
  });

  afterEach(async () => {
    await harness?.close().catch(() => undefined);
    harness = null;
  });

  after(() => server?.destroy());

  it('queues requests on its connections while other clients hold every other slot (53300)', async () => {
    const [app] = await open();
    // the pool holds one connection and readiness its own; then others take every slot left
    assert.equal((await get(app, '/api/v1/blocks/1')).status, 200);
    assert.equal((await get(app, '/health/readiness')).status, 200);
    const others: pg.Client[] = [];
    try {
      others.push(...(await takeEverySlot(server.adminUrl)));
      const counts = await load(app, ['/api/v1/blocks/2', '/api/v1/accounts/0.0.3', '/health/readiness'], 8, 2000);
      const waits = app.appDb.poolStats?.().waits ?? 0;
      console.log(`every slot taken (${others.length} other clients): ${JSON.stringify(Object.fromEntries(counts))}, pool waits ${waits}`);
      for (const [key, n] of counts) assert.match(key, / 200$/, `${n} × ${key}`);
      assert.ok(
        lines.some((l) => l.startsWith('database refuses more connections')),
        'logged as its own line',
      );
      assert.ok(waits > 0, 'waits counted');
    } finally {
      await Promise.all(others.map((c) => c.end().catch(() => undefined)));
    }
  });

  it('answers unrelated requests and readiness while one table stays locked beyond the statement timeout', async () => {
    const [app, databaseUrl] = await open();
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock record_file in access exclusive mode');
      const released = sleep(STATEMENT_TIMEOUT_MS + 1000).then(() => locker.query('rollback'));
      const blocks = load(app, ['/api/v1/blocks/2'], 8, STATEMENT_TIMEOUT_MS);
      const others = load(app, ['/api/v1/accounts/0.0.3', '/health/readiness'], 2, STATEMENT_TIMEOUT_MS);
      const [blockCounts, otherCounts] = await Promise.all([blocks, others]);
      await released;
      console.log(
        `record_file locked: blocks ${JSON.stringify(Object.fromEntries(blockCounts))}, others ${JSON.stringify(Object.fromEntries(otherCounts))}`,
      );
      // the locked table's requests fail after the lock timeout, not the statement timeout
      for (const key of blockCounts.keys()) assert.match(key, / 503$/);
      for (const [key, n] of otherCounts) assert.match(key, / 200$/, `${n} × ${key}`);
      assert.equal((await get(app, '/api/v1/blocks/2')).status, 200, 'answers again once the lock is gone');
    } finally {
      await locker.end().catch(() => undefined);
    }
  });
});
