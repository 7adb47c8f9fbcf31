/**
 * A private PostgreSQL server for fault tests: its own data directory and port, started, stopped
 * and restarted by the test, removed afterwards. Runs the server binaries as the `postgres` user
 * when the tests run as root (PostgreSQL refuses to run as root).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort() : [];
  const dir = versions.length ? join(root, versions.at(-1)!, 'bin') : '';
  if (!dir || !existsSync(join(dir, 'initdb'))) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  port: number;
  adminUrl: string;
  start(): void;
  stop(): void;
  destroy(): void;
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]) => {
    const command = join(bin, tool);
    return asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  };
  const dir = mkdtempSync(join(tmpdir(), 'lqs-pg-'));
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const instance: PrivatePostgres = {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    destroy: () => {
      try {
        instance.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  instance.start();
  return instance;
}
