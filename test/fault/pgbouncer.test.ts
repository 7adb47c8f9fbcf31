/**
 * The service behind PgBouncer with PgBouncer's defaults (but its pool size), in session and in
 * transaction mode, with a service pool smaller and larger than PgBouncer's: every answer right,
 * no 500, no request held beyond the connection timeouts, readiness UP throughout.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import autocannon from 'autocannon';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Harness } from '../../tools/testApp/harness.js';
import { pgbouncerSkipReason, startPgBouncer, type PgBouncer, type PoolMode } from '../../tools/db/pgbouncer.js';
import { FAULT_BLOCKS } from '../support/faultHarness.js';
import { get } from '../support/harness.js';
import { createPrivatePostgres, privatePostgresSkipReason, type PrivatePostgres } from '../support/privatePostgres.js';

/** PgBouncer's server connections per database and user (its default is 20; smaller keeps the runs light) */
const BOUNCER_POOL = 4;
const CONNECTION_TIMEOUT_MS = 1000;
const LOAD_SECONDS = 5;
/** no request may take longer: a connection timeout or two, with the machine shared */
const MAX_LATENCY_MS = 5000;

const skip = privatePostgresSkipReason() || pgbouncerSkipReason();

describe('behind PgBouncer (private PostgreSQL and PgBouncer)', { skip }, () => {
  let server: PrivatePostgres;

  before(async () => {
    server = await createPrivatePostgres();
  });

  after(() => server?.destroy());

  const runs: { mode: PoolMode; poolSize: number; preparedStatements?: boolean }[] = [
    { mode: 'session', poolSize: 2 },
    { mode: 'session', poolSize: 8 },
    { mode: 'transaction', poolSize: 2, preparedStatements: false },
    { mode: 'transaction', poolSize: 8, preparedStatements: false },
    // the default (named statements): detected, logged once with the fix, and turned off
    { mode: 'transaction', poolSize: 8 },
  ];

  for (const run of runs) {
    const named = run.preparedStatements === false ? 'db.preparedStatements false' : 'default settings';
    it(`${run.mode} mode, service pool ${run.poolSize} against PgBouncer's ${BOUNCER_POOL}, ${named}`, async () => {
      const lines: { level: string; msg: string }[] = [];
      const logger = {
        info: (_: object, msg: string) => lines.push({ level: 'info', msg }),
        warn: (_: object, msg: string) => lines.push({ level: 'warn', msg }),
      };
      let bouncer: PgBouncer | null = null;
      let harness: Harness | null = null;
      try {
        bouncer = await startPgBouncer(server.adminUrl, run.mode, { poolSize: BOUNCER_POOL });
        const through = bouncer;
        harness = await Harness.open({
          backend: 'postgres',
          adminUrl: server.adminUrl,
          appUrl: (url) => through.through(url),
          pool: {
            size: run.poolSize,
            statementTimeoutMs: 5000,
            lockTimeoutMs: 1000,
            connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
            preparedStatements: run.preparedStatements,
            logger,
          },
        });
        await harness.prepare(FAULT_BLOCKS);
        const blocks = await get(harness, '/api/v1/blocks?order=asc&limit=2');
        assert.equal(blocks.status, 200);
        assert.deepEqual(
          (blocks.body as { blocks: { number: number }[] }).blocks.map((b) => b.number),
          [0, 1],
        );
        assert.equal((await get(harness, '/api/v1/blocks/3')).status, 200);

        await harness.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = harness.app.server.address() as AddressInfo;
        const readiness = new Map<number, number>();
        let loading = true;
        const probe = (async () => {
          while (loading) {
            const status = (await get(harness!, '/health/readiness')).status;
            readiness.set(status, (readiness.get(status) ?? 0) + 1);
            await sleep(100);
          }
        })();
        const statuses = new Map<number, number>();
        const result = await autocannon({
          url: `http://127.0.0.1:${port}`,
          connections: 16,
          duration: LOAD_SECONDS,
          timeout: MAX_LATENCY_MS / 1000,
          requests: [{ path: '/api/v1/blocks?limit=5' }, { path: '/api/v1/blocks/2' }, { path: '/api/v1/blocks/4' }],
          setupClient: (client) => {
            client.on('response', (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
          },
        });
        loading = false;
        await probe;
        const stats = harness.appDb.poolStats?.();
        const total = [...statuses.values()].reduce((a, b) => a + b, 0);
        console.log(
          `${run.mode}, pool ${run.poolSize}/${BOUNCER_POOL}, ${named}: ${JSON.stringify(Object.fromEntries(statuses))} ` +
            `in ${LOAD_SECONDS} s, max ${result.latency.max} ms, readiness ${JSON.stringify(Object.fromEntries(readiness))}, ` +
            `pool waits ${stats?.waits ?? 'n/a'}, log: ${JSON.stringify([...new Set(lines.map((l) => l.msg))])}`,
        );
        assert.ok(total > 100, `only ${total} requests answered`);
        assert.deepEqual([...statuses.keys()], [200], 'every answer 200');
        assert.equal(result.errors, 0, 'no socket errors or timeouts');
        assert.ok(result.latency.max < MAX_LATENCY_MS, `slowest ${result.latency.max} ms`);
        assert.deepEqual([...readiness.keys()], [200], 'readiness UP throughout');
        if (run.preparedStatements === undefined && run.mode === 'transaction') {
          const turnedOff = lines.filter((l) => l.msg.startsWith('named statements fail'));
          assert.equal(turnedOff.length, 1, 'named statements turned off, logged once with the fix');
          assert.match(turnedOff[0]!.msg, /db\.preparedStatements/);
        }
        if (run.poolSize > BOUNCER_POOL && run.mode === 'session') {
          // the connections beyond PgBouncer's get no server: the pool holds to those it has, and says so
          assert.ok((stats?.waits ?? 0) > 0, 'waits counted');
          assert.ok(lines.some((l) => l.msg.startsWith('database refuses more connections')));
          assert.ok(lines.some((l) => l.msg.startsWith('database pool: requests wait')));
        }
      } finally {
        await harness?.close().catch(() => undefined);
        await bouncer?.stop();
      }
    });
  }
});
