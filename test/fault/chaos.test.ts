/**
 * The chaos test: `serve` over a private PostgreSQL server, 60 s of mixed load on every
 * route and both health routes while the test terminates the service's backends every 2 s, stops
 * and restarts PostgreSQL once, then has other clients take every connection slot for a while,
 * then locks one table (record_file) beyond the statement timeout, and holds 50 slow-reading and
 * 50 slow-header connections throughout.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { demoExampleUrls } from '../../src/demo/ledger.js';
import { createPrivatePostgres, type PrivatePostgres, takeEverySlot } from '../support/privatePostgres.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const LOAD_SECONDS = Number(process.env.LQS_CHAOS_SECONDS ?? 60);
const CLIENTS = 16;
/** the load before the baseline memory reading */
const WARM_UP_SECONDS = 5;
const MAX_IN_FLIGHT = 40;
const SLOW_READERS = 50;
const SLOW_HEADERS = 50;
/** the documented deadlines (server.requestTimeoutMs, server.responseTimeoutMs) */
const REQUEST_TIMEOUT_MS = 30_000;
/** the service's statement and lock timeouts here: the table lock is held beyond the former */
const STATEMENT_TIMEOUT_MS = 5000;
const LOCK_TIMEOUT_MS = 1000;
/** how long other clients hold every connection slot, and the table lock */
const PRESSURE_MS = 5000;
const TABLE_LOCK_MS = STATEMENT_TIMEOUT_MS + 1000;
/** the demo URLs whose statements read record_file, the table locked */
const READS_LOCKED_TABLE = /^\/api\/v1\/(blocks|contracts)/;
/** what the service may log at warn in the whole run */
const LOG_BUDGET_BYTES = 64 * 1024;

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Whether the server still holds an established connection from each of `clientPorts` (IPv4 loopback). */
function establishedOnServer(serverPort: number, clientPorts: number[]): number {
  const wanted = new Set(clientPorts);
  let count = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    if (!local || !remote || state !== '01') continue;
    if (parseInt(local.split(':')[1]!, 16) === serverPort && wanted.has(parseInt(remote.split(':')[1]!, 16))) count++;
  }
  return count;
}

describe('chaos: database faults and hostile clients under load', () => {
  let server: PrivatePostgres;
  let child: ChildProcess;
  let exited: Promise<[number | null, NodeJS.Signals | null]>;
  let exitedEarly = false;
  let log = '';
  let baseUrl = '';
  let databaseUrl = '';

  before(async () => {
    server = await createPrivatePostgres();
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query('create database chaos');
    await admin.end();
    databaseUrl = server.adminUrl.replace(/\/postgres$/, '/chaos');
    child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        LQS_HOST: '127.0.0.1',
        LQS_ADMIN_ENABLED: 'false',
        LQS_LOG_LEVEL: 'warn',
        LQS_DEMO_LOAD: 'true',
        LQS_DB_POOLSIZE: '8',
        LQS_SERVER_MAXINFLIGHT: String(MAX_IN_FLIGHT),
        LQS_DB_STATEMENTTIMEOUTMS: String(STATEMENT_TIMEOUT_MS),
        LQS_DB_LOCKTIMEOUTMS: String(LOCK_TIMEOUT_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    void exited.then(() => (exitedEarly = true));
    let banner = '';
    baseUrl = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        banner += chunk.toString();
        const m = /listening on (http:\/\/\S+)/.exec(banner);
        if (m) {
          child.stdout!.off('data', onData);
          child.stdout!.on('data', (more: Buffer) => (log += more.toString()));
          resolve(m[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      void exited.then(([code]) => reject(new Error(`serve exited with ${code}: ${banner}${log}`)));
    });
    // the banner's own lines are not the log under test
    log = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .join('\n');
  });

  after(async () => {
    if (child && !exitedEarly) {
      child.kill('SIGKILL');
      await exited;
    }
    server?.destroy();
  });

  it('never exits, answers only 200/4xx or 503 with Retry-After, keeps health from 500, recovers within 1 s, and logs little', {
    timeout: (LOAD_SECONDS + 120) * 1000,
  }, async () => {
    const port = Number(new URL(baseUrl).port);
    const contract = (await (await fetch(`${baseUrl}/api/v1/contracts/0.0.6001/results/1700000004.003000000`)).json()) as { hash: string };
    const urls = [
      ...demoExampleUrls(),
      `/api/v1/contracts/results/${contract.hash}`,
      '/api/v1/docs/openapi.yml',
      '/api/v1/blocks?limit=x',
      '/api/v1/accounts/0.0.999999',
      '/api/v1/blocks?toString=1',
      '/health/liveness',
      '/health/readiness',
    ];
    // The baseline is the process warmed up by the same load: V8 sizes its young generation and
    // the pools reach their working size under load (on Node 26 that alone is 100+ MB over the
    // idle process, more on a faster machine), so what is measured after is what the faults and
    // the hostile clients add, and what a leak would.
    /** CLIENTS clients, each starting at its own place in `urls` and going round them until `until`. */
    const drive = (until: number, visit: (path: string) => Promise<void>) =>
      Promise.all(
        Array.from({ length: CLIENTS }, async (_, worker) => {
          for (let i = worker; Date.now() < until && !exitedEarly; i++) await visit(urls[i % urls.length]!);
        }),
      );
    await drive(Date.now() + WARM_UP_SECONDS * 1000, async (path) => {
      await (await fetch(baseUrl + path)).arrayBuffer();
    });
    const rssBefore = rssMb(child.pid!);
    const logBefore = Buffer.byteLength(log);

    const statuses = new Map<string, number>();
    const bad: string[] = [];
    let requests = 0;
    let socketErrors = 0;
    const tally = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const started = Date.now();
    const until = started + LOAD_SECONDS * 1000;

    // 50 clients that ask for the 1.6 MB bundle, over and over, and never read
    const slowReaders: Socket[] = [];
    for (let i = 0; i < SLOW_READERS; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.pause();
      socket.write('GET /api/v1/docs/static/swagger-ui-bundle.js HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(4));
      slowReaders.push(socket);
    }
    const slowReaderPorts = slowReaders.map((s) => s.localPort!);
    const readersHeldAt = Date.now();

    // 50 clients that send a header line every 2 s and never finish: cut at the request deadline
    const slowHeaderClosed: Promise<{ ms: number; status: string }>[] = [];
    const trickles: NodeJS.Timeout[] = [];
    for (let i = 0; i < SLOW_HEADERS; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      const opened = Date.now();
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.write('GET /api/v1/blocks HTTP/1.1\r\nHost: a\r\n');
      let n = 0;
      trickles.push(setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: 1\r\n`), 2000));
      slowHeaderClosed.push(once(socket, 'close').then(() => ({ ms: Date.now() - opened, status: received.split(' ')[1] ?? 'none' })));
    }

    // the database fault under way, for the requests that begin and end within it
    let phase: 'every slot taken' | 'record_file locked' | null = null;
    /** Other clients take every connection slot the server has left, for `ms`; returns how many they took. */
    const holdEverySlot = async (ms: number): Promise<number> => {
      const others: pg.Client[] = [];
      try {
        others.push(...(await takeEverySlot(server.adminUrl)));
        phase = 'every slot taken';
        await sleep(ms);
        phase = null;
        return others.length;
      } finally {
        phase = null;
        await Promise.all(others.map((c) => c.end().catch(() => undefined)));
      }
    };
    /** An exclusive lock on record_file, as a migration or VACUUM FULL takes, held for `ms`. */
    const lockOneTable = async (ms: number): Promise<void> => {
      const locker = new pg.Client({ connectionString: databaseUrl });
      locker.on('error', () => undefined);
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query('lock record_file in access exclusive mode');
        phase = 'record_file locked';
        await sleep(ms);
        phase = null;
        await locker.query('rollback');
      } finally {
        phase = null;
        await locker.end().catch(() => undefined);
      }
    };

    // the load: every route, both health routes, a few 4xx
    const load = drive(until, async (path) => {
      try {
        const during = phase;
        const res = await fetch(baseUrl + path);
        await res.arrayBuffer();
        requests++;
        const route = path.startsWith('/health') ? path : 'api';
        tally(`${route} ${res.status}`);
        // a request that began and ended within a database fault is counted under it too
        if (during !== null && phase === during) {
          const kind = path.startsWith('/health') ? path : READS_LOCKED_TABLE.test(path) ? 'record_file' : 'other';
          tally(`${during}: ${kind} ${res.status}`);
        }
        const ok =
          res.status === 200 || (res.status >= 400 && res.status < 500) || (res.status === 503 && res.headers.get('retry-after') === '1');
        if (!ok) bad.push(`${path} ${res.status} retry-after=${res.headers.get('retry-after')}`);
      } catch {
        socketErrors++;
      }
    });

    // the faults: backends terminated every 2 s; PostgreSQL stopped and restarted once; other
    // clients taking every connection slot; record_file locked beyond the statement timeout
    let terminated = 0;
    let recoveryMs = -1;
    let slotsTaken = 0;
    const faults = (async () => {
      let killer: pg.Client | null = null;
      let restarted = false;
      let pressed = false;
      let locked = false;
      while (Date.now() < until - 2000 && !exitedEarly) {
        await sleep(2000);
        // two seconds after the last termination: the pool has its connections again
        if (restarted && !pressed && Date.now() - started > LOAD_SECONDS * 1000 * 0.55) {
          pressed = true;
          slotsTaken = await holdEverySlot(PRESSURE_MS);
          continue;
        }
        if (pressed && !locked && Date.now() - started > LOAD_SECONDS * 1000 * 0.7) {
          locked = true;
          await lockOneTable(TABLE_LOCK_MS);
          continue;
        }
        if (!restarted && Date.now() - started > (LOAD_SECONDS * 1000) / 3) {
          restarted = true;
          await killer?.end().catch(() => undefined);
          killer = null;
          server.stop();
          await sleep(3000);
          server.start();
          // PostgreSQL accepts connections again: a normal request must be answered within 1 s
          const accepting = Date.now();
          for (;;) {
            const res = await fetch(`${baseUrl}/api/v1/blocks/39`).catch(() => null);
            await res?.arrayBuffer();
            if (res?.status === 200) break;
            if (Date.now() - accepting > 10_000) break;
            await sleep(20);
          }
          recoveryMs = Date.now() - accepting;
          continue;
        }
        try {
          if (!killer) {
            killer = new pg.Client({ connectionString: server.adminUrl });
            killer.on('error', () => undefined);
            await killer.connect();
          }
          const { rowCount } = await killer.query(
            `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'ledger-query-service'`,
          );
          terminated += rowCount ?? 0;
        } catch {
          await killer?.end().catch(() => undefined);
          killer = null;
        }
      }
      await killer?.end().catch(() => undefined);
    })();

    await Promise.all([load, faults]);
    for (const t of trickles) clearInterval(t);
    const slowHeaders = await Promise.all(slowHeaderClosed);
    const readersStillHeld = establishedOnServer(port, slowReaderPorts);
    const readersHeldMs = Date.now() - readersHeldAt;
    for (const socket of slowReaders) socket.destroy();
    await sleep(500);
    const rssAfter = rssMb(child.pid!);
    const logBytes = Buffer.byteLength(log) - logBefore;
    const logLines = log
      .slice(logBefore)
      .split('\n')
      .filter((l) => l.startsWith('{'));

    const headerCuts = slowHeaders.map((s) => s.ms).sort((a, b) => a - b);
    const summary = {
      seconds: LOAD_SECONDS,
      requests,
      statuses: Object.fromEntries([...statuses].sort()),
      socketErrors,
      terminatedBackends: terminated,
      slotsTaken,
      recoveryMs,
      slowHeaderCutMs: { min: headerCuts[0], max: headerCuts.at(-1), statuses: [...new Set(slowHeaders.map((s) => s.status))] },
      slowReadersStillConnectedAfterMs: { [readersHeldMs]: readersStillHeld },
      logBytes,
      logLines: Object.fromEntries(
        [...new Set(logLines.map((l) => (JSON.parse(l) as { msg: string }).msg))].map((m) => [
          m,
          logLines.filter((l) => l.includes(`"msg":"${m}"`)).length,
        ]),
      ),
      rssMb: { before: rssBefore, after: rssAfter },
    };
    console.log(`chaos: ${JSON.stringify(summary)}`);

    assert.equal(exitedEarly, false, `the process exited: ${log.slice(-2000)}`);
    assert.deepEqual(bad.slice(0, 20), [], `${bad.length} answers outside 200/4xx/503+Retry-After`);
    assert.equal([...statuses.keys()].filter((k) => k.startsWith('/health') && k.endsWith(' 500')).length, 0, 'health never 500');
    assert.equal(statuses.get('/health/liveness 503'), undefined, 'liveness never 503');
    assert.ok((statuses.get('api 200') ?? 0) > 1000, 'the API served');
    assert.ok((statuses.get('api 503') ?? 0) > 0, 'the outage was seen');
    assert.equal(socketErrors, 0, 'no request failed at the socket');
    assert.ok(terminated > 0, 'backends were terminated');
    assert.ok(recoveryMs >= 0 && recoveryMs < 1000, `recovered ${recoveryMs} ms after PostgreSQL accepted connections`);
    // cut at the documented request deadline (checked every second; slack for a loaded machine)
    for (const { ms, status } of slowHeaders) {
      assert.ok(ms >= REQUEST_TIMEOUT_MS - 100 && ms < REQUEST_TIMEOUT_MS + 4000, `slow-header connection cut after ${ms} ms`);
      assert.equal(status, '408');
    }
    // the database faults: no 503 while the pool holds connections, none for what does not read the
    // locked table, readiness never failing for one table
    const during = (prefix: string) => [...statuses].filter(([key]) => key.startsWith(prefix));
    assert.ok(slotsTaken > 0, 'other clients took the slots left');
    assert.ok(
      during('every slot taken: ').some(([key]) => key.endsWith(' 200')),
      'requests answered while every slot was taken',
    );
    assert.deepEqual(
      during('every slot taken: ').filter(([key]) => !key.endsWith(' 200') && !/ 4\d\d$/.test(key)),
      [],
      'no 503 while the pool holds connections',
    );
    assert.ok(
      (statuses.get('record_file locked: /health/readiness 200') ?? 0) > 0 && (statuses.get('record_file locked: other 200') ?? 0) > 0,
      'readiness and other requests answered while record_file was locked',
    );
    assert.deepEqual(
      during('record_file locked: ').filter(([key]) => !key.includes(': record_file ') && / 5\d\d$/.test(key)),
      [],
      'no 503 for what does not read the locked table, readiness never failing',
    );
    // the outage's end is logged, and every line has one pid
    assert.ok(
      logLines.some((l) => (JSON.parse(l) as { msg: string }).msg === 'database available again'),
      'database available again logged',
    );
    for (const line of logLines) assert.equal(line.match(/"pid":/g)?.length, 1, line);
    assert.equal(readersStillHeld, 0, `slow readers still connected after ${readersHeldMs} ms (response deadline 30 s)`);
    assert.ok(logBytes < LOG_BUDGET_BYTES, `logged ${logBytes} bytes`);
    assert.ok(rssAfter < rssBefore + 150, `RSS ${rssBefore} → ${rssAfter} MB`);

    // and it still stops cleanly
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  });
});
