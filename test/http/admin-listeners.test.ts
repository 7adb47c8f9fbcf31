/** The real listeners: the admin route lives on the admin port only, and `serve` closes both on SIGTERM. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_CONNECTION_LIMITS, buildAdminApp } from '../../src/admin/app.js';
import { configWith } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startListeners } from '../../src/server.js';
import { useHarness } from '../support/harness.js';

const AUTH = 'Basic ' + Buffer.from('ops:pw').toString('base64');
const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

const changeLevel = (base: string, level: string) =>
  fetch(`${base}/change-log-level`, {
    method: 'POST',
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ level }),
  });

async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

describe('admin and public listeners', () => {
  const harness = useHarness();

  it('serve the admin route on the admin port only, and close together', async () => {
    const h = harness();
    const config = configWith({ port: 0, host: '127.0.0.1', admin: { port: 0, users: ['ops:pw'] } });
    const logger = createLogger('silent');
    const listeners = await startListeners({ config, db: h.db, clock: h.clock, logger });
    try {
      assert.match(listeners.publicUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(listeners.adminUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(listeners.publicUrl, listeners.adminUrl);

      let res = await changeLevel(listeners.publicUrl, 'debug');
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { _status: { messages: [{ message: 'Not found' }] } });
      res = await fetch(`${listeners.publicUrl}/change-log-level`, { headers: { authorization: AUTH } });
      assert.equal(res.status, 404);

      res = await changeLevel(listeners.adminUrl!, 'debug');
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'Logging level changed to: debug');
      assert.equal(logger.level, 'debug');
      res = await fetch(`${listeners.adminUrl}/api/v1/blocks`);
      assert.equal(res.status, 404, 'the public routes are not on the admin port');
      res = await fetch(`${listeners.adminUrl}/change-log-level`);
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    } finally {
      await listeners.close();
    }
    assert.ok(await refusesConnections(`${listeners.publicUrl}/health/liveness`));
    assert.ok(await refusesConnections(`${listeners.adminUrl}/change-log-level`));
  });

  it('starts no admin listener when admin.enabled is false', async () => {
    const h = harness();
    const config = configWith({ port: 0, host: '127.0.0.1', admin: { enabled: false } });
    const listeners = await startListeners({ config, db: h.db, clock: h.clock, logger: createLogger('silent') });
    try {
      assert.equal(listeners.adminUrl, null);
      assert.equal((await fetch(`${listeners.publicUrl}/health/liveness`)).status, 200);
    } finally {
      await listeners.close();
    }
  });

  it('closes the public listener again when the admin port is taken', async () => {
    const h = harness();
    const config = configWith({ port: 0, host: '127.0.0.1', admin: { port: 0, users: ['ops:pw'] } });
    const first = await startListeners({ config, db: h.db, clock: h.clock, logger: createLogger('silent') });
    try {
      const taken = configWith({ admin: { port: Number(new URL(first.adminUrl!).port) } }, config);
      await assert.rejects(startListeners({ config: taken, db: h.db, clock: h.clock, logger: createLogger('silent') }), /EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it('serve prints where both listeners are and SIGTERM closes both', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lqs-serve-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      LQS_HOST: '127.0.0.1',
      LQS_ADMIN_PORT: '0',
      LQS_ADMIN_USERS: 'ops:pw',
      LQS_DB_DATADIR: dataDir,
      LQS_DEMO_LOAD: 'false',
      LQS_LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.LQS_CONFIG_FILE;
    const child = spawn(process.execPath, [MAIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    try {
      const urls = await new Promise<{ publicUrl: string; adminUrl: string }>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
          const publicUrl = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
          const adminUrl = /Admin listener: (http:\/\/\S+)/.exec(stdout)?.[1];
          if (publicUrl && adminUrl) resolve({ publicUrl, adminUrl });
        });
        void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}${stdout}`)));
      });
      assert.match(
        stdout,
        /Admin listener: http:\/\/127\.0\.0\.1:\d+ \(POST http:\/\/127\.0\.0\.1:\d+\/change-log-level, HTTP Basic auth\)/,
      );
      assert.equal((await fetch(`${urls.publicUrl}/health/liveness`)).status, 200);
      assert.equal((await changeLevel(urls.publicUrl, 'info')).status, 404);
      assert.equal((await changeLevel(urls.adminUrl, 'info')).status, 200);

      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      assert.ok(await refusesConnections(`${urls.publicUrl}/health/liveness`));
      assert.ok(await refusesConnections(`${urls.adminUrl}/change-log-level`));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('caps the admin port connections per address and in all, so idle sockets cannot shut operators out', async () => {
    const raw: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void raw.push(line) });
    const app = await buildAdminApp({ config: configWith({ admin: { users: ['ops:pw'] } }), logger });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const sockets: Socket[] = [];
    const open = async (localAddress: string) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress });
      const state = { closed: false };
      socket.on('error', () => undefined);
      socket.on('close', () => (state.closed = true));
      sockets.push(socket);
      await once(socket, 'connect');
      return state;
    };
    try {
      const held = [];
      for (let i = 0; i < ADMIN_CONNECTION_LIMITS.maxConnectionsPerAddress; i++) held.push(await open('127.0.0.2'));
      const beyond = await open('127.0.0.2');
      for (let waited = 0; !beyond.closed && waited < 5000; waited += 20) await sleep(20);
      assert.equal(beyond.closed, true, 'the connection beyond the per-address cap is closed');
      assert.equal(held.filter((s) => s.closed).length, 0, 'the connections within the cap stay open');
      const res = await fetch(`http://127.0.0.1:${port}/change-log-level`, { headers: { authorization: AUTH } });
      assert.equal(res.status, 200, 'another address is still served');
      const refused = raw.map((l) => JSON.parse(l)).find((l) => l.msg === 'connection refused: at the connection cap');
      assert.equal(refused?.reason, 'address');
      assert.equal(refused?.clientAddress, '127.0.0.2');
      assert.equal(refused?.listener, 'admin');
    } finally {
      for (const s of sockets) s.destroy();
      await app.close();
    }
  });
});
