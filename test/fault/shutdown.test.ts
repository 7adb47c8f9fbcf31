import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createScratchDatabase, DEFAULT_ADMIN_URL, type ScratchDatabase } from '../../tools/db/scratch.js';
import { SetupLoader } from '../../src/ledgerSetup/loader.js';
import { postgresServerSkipReason } from '../support/privatePostgres.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** Starts `serve` on ephemeral ports and resolves with its public URL once it listens. */
let errors = '';

async function startServe(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      LQS_HOST: '127.0.0.1',
      LQS_ADMIN_PORT: '0',
      LQS_LOG_LEVEL: 'warn',
      LQS_DEMO_LOAD: 'false',
      LQS_CACHE_ENABLED: 'false',
      // the requests in flight wait on a lock for as long as the test holds it
      LQS_DB_LOCKTIMEOUTMS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
}

describe('graceful shutdown on SIGTERM', {
  skip: await postgresServerSkipReason(process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL),
}, () => {
  let scratch: ScratchDatabase;
  let owner: Db;

  before(async () => {
    scratch = await createScratchDatabase(process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL);
    owner = await openPostgres({ url: scratch.url, poolSize: 2, statementTimeoutMs: 10_000, connectionTimeoutMs: 3000 });
    await migrate(owner);
    await new SetupLoader(owner, { shard: 0n, realm: 0n }).load({ recordFiles: [{ index: 1, hash: 'cd'.repeat(48) }] });
    await owner.close();
  });

  after(async () => {
    await scratch?.drop();
  });

  it('stops accepting, finishes the request in flight, closes the pool and exits 0', async () => {
    const { child, url } = await startServe(scratch.url);
    assert.equal((await fetch(`${url}/api/v1/blocks/1`)).status, 200);

    const locker = new pg.Client({ connectionString: scratch.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table record_file in access exclusive mode');
    const inFlight = fetch(`${url}/api/v1/blocks/1`);
    // a second request whose client gives up: its handler must still finish before the pool closes
    const abandoned = new AbortController();
    const gone = fetch(`${url}/api/v1/blocks/1`, { signal: abandoned.signal }).catch(() => 'aborted');
    for (let i = 0; i < 100; i++) {
      const { rows } = await locker.query(
        `select 1 from pg_stat_activity where application_name = 'ledger-query-service' and wait_event_type = 'Lock'`,
      );
      if (rows.length > 1) break;
      await sleep(20);
    }

    abandoned.abort();
    assert.equal(await gone, 'aborted');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await sleep(300);
    // a new connection is refused; a request on a kept-alive one is answered 503 while closing
    const late = await fetch(`${url}/api/v1/blocks/1`).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.ok(late === 'refused' || late === 503, `late request: ${late}`);
    await locker.query('commit');
    await locker.end();

    const response = await inFlight;
    assert.equal(response.status, 200, 'the request in flight completes');
    assert.equal(((await response.json()) as { number: number }).number, 1);
    const [code] = await exited;
    assert.equal(code, 0);
    assert.doesNotMatch(errors, /request failed|Internal error/, 'no handler failed on a closed pool');

    const check = new pg.Client({ connectionString: scratch.url });
    await check.connect();
    const { rows } = await check.query(
      `select count(*)::int as n from pg_stat_activity where application_name = 'ledger-query-service' and datname = current_database()`,
    );
    await check.end();
    assert.equal(rows[0].n, 0, 'the pool is closed');
  });
  /** Spawns `serve` at info level; resolves once it has said 'starting' (its signal handlers are in place). */
  const spawnStarting = async (databaseUrl: string) => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        LQS_HOST: '127.0.0.1',
        LQS_ADMIN_PORT: '0',
        LQS_LOG_LEVEL: 'info',
        LQS_DEMO_LOAD: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('"msg":"starting"')) resolve();
      });
      void exited.then(() => reject(new Error(`serve exited before starting: ${output} ${stderr}`)));
    });
    return { child, exited, output: () => output, stderr: () => stderr };
  };

  it('exits 0 after SIGTERM or SIGINT at any moment of start-up, closing what is open', { timeout: 120_000 }, async () => {
    const outcomes: string[] = [];
    for (const [delayMs, signal] of [
      [0, 'SIGTERM'],
      [20, 'SIGINT'],
      [60, 'SIGTERM'],
      [150, 'SIGTERM'],
      [300, 'SIGINT'],
      [600, 'SIGTERM'],
      [1200, 'SIGTERM'],
    ] as const) {
      const serve = await spawnStarting(scratch.url);
      await sleep(delayMs);
      serve.child.kill(signal);
      const [code, bySignal] = await serve.exited;
      const reached = serve.output().includes('listening on')
        ? 'listening'
        : serve.output().includes('database ready')
          ? 'database open'
          : 'opening';
      outcomes.push(`${signal} after ${delayMs} ms (${reached}): ${code ?? bySignal}`);
      assert.equal(code, 0, `${signal} after ${delayMs} ms (${reached}) exited with ${code ?? bySignal}: ${serve.stderr()}`);
      assert.equal(serve.stderr(), '');
    }
    console.log(outcomes.join('; '));
    const check = new pg.Client({ connectionString: scratch.url });
    await check.connect();
    const { rows } = await check.query(
      `select count(*)::int as n from pg_stat_activity where application_name = 'ledger-query-service' and datname = current_database()`,
    );
    await check.end();
    assert.equal(rows[0].n, 0, 'no connection left open');
  });

  it('exits 0 after SIGTERM while the database does not answer, once the step under way gives up', { timeout: 60_000 }, async () => {
    // accepts connections and never answers: opening the database waits for its connection timeout
    const held = new Set<Socket>();
    const silent = createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const serve = await spawnStarting(`postgres://nobody@127.0.0.1:${port}/none`);
      await sleep(200);
      const signalled = Date.now();
      serve.child.kill('SIGTERM');
      const [code] = await serve.exited;
      const tookMs = Date.now() - signalled;
      assert.equal(code, 0, serve.stderr());
      assert.ok(tookMs < 3000 + 2000, `exited ${tookMs} ms after the signal (connection timeout 3 s)`);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
