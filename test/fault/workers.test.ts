/**
 * `serve` with `server.workers: 2`, run as a user runs it: one primary that supervises and two
 * worker processes on one public port; the admin listener's level reaching both, metrics of the
 * whole service, a killed worker replaced, and SIGTERM ending everything with exit 0.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createScratchDatabase, DEFAULT_ADMIN_URL, type ScratchDatabase } from '../../tools/db/scratch.js';
import { SetupLoader } from '../../src/ledgerSetup/loader.js';
import { freePort, postgresServerSkipReason } from '../support/privatePostgres.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const ADMIN_URL = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;

type Line = { pid?: number; msg?: string; level?: number; workerPids?: number[]; workerPid?: number; url?: string } & Record<
  string,
  unknown
>;

/** A GET on a connection of its own (the primary hands out connections, not requests, round-robin). */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A scratch database with the schema and one block. */
async function blockDatabase(): Promise<ScratchDatabase> {
  const scratch = await createScratchDatabase(ADMIN_URL);
  const owner = await openPostgres({ url: scratch.url, poolSize: 2, statementTimeoutMs: 10_000, connectionTimeoutMs: 3000 });
  await migrate(owner);
  await new SetupLoader(owner, { shard: 0n, realm: 0n }).load({ recordFiles: [{ index: 1, hash: 'cd'.repeat(48) }] });
  // one optional index missing, as on a mirror node database: the start-up warning is given once, not per worker
  await owner.exec('drop index token_balance__account_token_latest');
  await owner.close();
  return scratch;
}

describe('serve with two worker processes', { skip: await postgresServerSkipReason(ADMIN_URL) }, () => {
  let scratch: ScratchDatabase;
  let child: ChildProcess;
  let exited: Promise<[number | null, NodeJS.Signals | null]>;
  let stdout = '';
  let stderr = '';
  let base = '';
  let adminBase = '';
  const lines = (): Line[] =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  const waitFor = async (test: () => boolean, what: string, timeoutMs = 20_000) => {
    for (const start = Date.now(); !test(); await sleep(50)) {
      if (Date.now() - start > timeoutMs) assert.fail(`timed out waiting for ${what}: ${stdout} ${stderr}`);
    }
  };
  let workerPids: number[] = [];

  before(async () => {
    scratch = await blockDatabase();
    const adminPort = await freePort();
    child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: scratch.url,
        PORT: '0',
        LQS_HOST: '127.0.0.1',
        LQS_ADMIN_PORT: String(adminPort),
        LQS_ADMIN_USERS: 'ops:secret',
        LQS_LOG_LEVEL: 'info',
        LQS_DEMO_LOAD: 'false',
        LQS_CACHE_ENABLED: 'false',
        LQS_SERVER_WORKERS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => /listening on (http:\/\/\S+)/.test(stdout), 'the banner');
    base = /listening on (http:\/\/\S+)/.exec(stdout)![1]!;
    adminBase = `http://127.0.0.1:${adminPort}`;
    workerPids = lines().find((l) => l.msg === 'workers ready')!.workerPids!;
  });

  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    for (const pid of workerPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await scratch?.drop();
  });

  it('answers on one port from both workers, with the metrics of the whole service', async () => {
    assert.match(stdout, /\(postgres, 2 worker processes\)/);
    assert.equal(workerPids.length, 2);
    for (let i = 0; i < 10; i++) assert.equal((await get(`${base}/api/v1/blocks/1`)).status, 200);
    await waitFor(() => lines().filter((l) => l.msg === 'request completed').length >= 10, 'the request lines');
    const served = new Set(
      lines()
        .filter((l) => l.msg === 'request completed')
        .map((l) => l.pid),
    );
    assert.deepEqual([...served].sort(), [...workerPids].sort(), 'both workers answered');
    assert.equal(lines().filter((l) => 'missingOptionalIndexes' in l).length, 1, 'one missing-index warning for all workers');
    // one pid per line, the primary's lines and the workers' alike ('worker died' names the worker as workerPid)
    for (const line of stdout.split('\n').filter((l) => l.startsWith('{'))) assert.equal(line.match(/"pid":/g)?.length, 1, line);
    // a scrape on either worker counts the requests of both (scrapes are not counted)
    for (let i = 0; i < 2; i++) {
      const scrape = await get(`${base}/swagger/metrics/`);
      assert.equal(scrape.status, 200);
      assert.match(scrape.body, /^api_all_request_total 10$/m);
      assert.match(scrape.body, /^api_request_total\{method="GET",path="\/api\/v1\/blocks\/\{hashOrNumber\}",code="200"\} 10$/m);
    }
    assert.equal((await get(`${base}/health/readiness`)).status, 200);
  });

  it('passes a log level set on the admin listener on to every worker', async () => {
    const response = await fetch(`${adminBase}/change-log-level`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('ops:secret').toString('base64')}` },
      body: JSON.stringify({ level: 'debug' }),
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'Logging level changed to: debug');
    const changed = () =>
      new Set(
        lines()
          .filter((l) => l.msg === 'log level changed by the cluster primary' && l.to === 'debug')
          .map((l) => l.pid),
      );
    await waitFor(() => changed().size === 2, 'both workers to change level');
    for (let i = 0; i < 10; i++) await get(`${base}/api/v1/blocks/1`);
    await waitFor(
      () =>
        new Set(
          lines()
            .filter((l) => l.msg === 'incoming request' && l.level === 20)
            .map((l) => l.pid),
        ).size === 2,
      'debug lines of both workers',
    );
  });

  it('replaces a worker that dies, at the level set last', async () => {
    const victim = workerPids[0]!;
    process.kill(victim, 'SIGKILL');
    await waitFor(
      () => lines().some((l) => l.msg === 'worker died' && l.workerPid === victim && l.signal === 'SIGKILL'),
      'the death to be logged',
    );
    await waitFor(() => lines().some((l) => l.msg === 'worker replaced'), 'the replacement');
    const replacement = lines().find((l) => l.msg === 'worker replaced')!.workerPid!;
    assert.ok(alive(replacement) && replacement !== victim);
    workerPids = [workerPids[1]!, replacement];
    // both answer, the replacement at debug from its start (its 'incoming request' lines)
    for (let i = 0; i < 10; i++) assert.equal((await get(`${base}/api/v1/blocks/1`)).status, 200);
    await waitFor(() => lines().some((l) => l.msg === 'incoming request' && l.pid === replacement), 'the replacement to serve at debug');
  });

  it('stops every worker on SIGTERM and exits 0, leaving no process or connection behind', async () => {
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, stderr);
    for (const pid of workerPids) assert.equal(alive(pid), false, `worker ${pid} is gone`);
    assert.equal(lines().filter((l) => l.msg === 'shutting down').length, 3, 'the primary and both workers shut down');
    assert.doesNotMatch(stdout, /"worker died"[^\n]*"signal":"SIGTERM"/);
    const check = new pg.Client({ connectionString: scratch.url });
    await check.connect();
    const { rows } = await check.query(
      `select count(*)::int as n from pg_stat_activity where application_name = 'ledger-query-service' and datname = current_database()`,
    );
    await check.end();
    assert.equal(rows[0].n, 0, 'the pools are closed');
  });
});

describe('serve with worker processes that keep dying at start-up', { skip: await postgresServerSkipReason(ADMIN_URL) }, () => {
  let scratch: ScratchDatabase;
  const admin = () => new pg.Client({ connectionString: ADMIN_URL });

  before(async () => {
    scratch = await blockDatabase();
  });

  after(async () => {
    const client = admin();
    await client.connect();
    await client.query(`alter database ${scratch.name} with allow_connections true`);
    await client.end();
    await scratch?.drop();
  });

  it('replaces a dead worker with a growing delay, then gives up with exit 1', { timeout: 90_000 }, async () => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: scratch.url,
        PORT: '0',
        LQS_HOST: '127.0.0.1',
        LQS_ADMIN_ENABLED: 'false',
        LQS_LOG_LEVEL: 'info',
        LQS_DEMO_LOAD: 'false',
        LQS_SERVER_WORKERS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
    for (const start = Date.now(); !lines().some((l) => l.msg === 'workers ready'); await sleep(50)) {
      if (Date.now() - start > 30_000 || child.exitCode !== null) assert.fail(`serve did not start: ${stdout} ${stderr}`);
    }
    const pids = lines().find((l) => l.msg === 'workers ready')!.workerPids!;
    // from now on a new worker cannot connect; the running ones keep their connections
    const client = admin();
    await client.connect();
    await client.query(`alter database ${scratch.name} with allow_connections false`);
    await client.end();
    process.kill(pids[0]!, 'SIGKILL');

    const [code] = await exited;
    assert.equal(code, 1, stdout + stderr);
    const delays = lines()
      .filter((l) => l.msg === 'replacing the worker')
      .map((l) => l.delayMs);
    assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000]);
    assert.equal(lines().filter((l) => l.msg === 'replacement worker failed to start').length, 5);
    assert.ok(lines().some((l) => l.msg === 'giving up: workers keep dying at start-up'));
    assert.match(stderr, /^error: 5 worker processes in a row exited before they were ready; giving up$/m);
    assert.equal(alive(pids[1]!), false, 'the remaining worker was stopped');
  });
});
