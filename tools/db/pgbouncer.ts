/**
 * A private PgBouncer in front of a PostgreSQL server, for the fault tests and the conformance
 * runner: its own ini in a temporary folder, a free port, PgBouncer's defaults except the pool
 * mode and, when asked, the server connections per database and user (`default_pool_size`).
 * PgBouncer refuses to run as root: under root it runs as the `postgres` user.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './freePort.js';

export type PoolMode = 'session' | 'transaction';

export interface PgBouncer {
  port: number;
  /** `url` with its host and port replaced by the bouncer's */
  through(url: string): string;
  stop(): Promise<void>;
}

/** The pgbouncer binary: PATH, then Debian's /usr/sbin. */
export function pgbouncerBinary(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''), '/usr/sbin'];
  for (const dir of dirs) if (existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  return null;
}

export function pgbouncerSkipReason(): string | false {
  return pgbouncerBinary() ? false : 'needs pgbouncer (Debian package pgbouncer): not found on PATH or in /usr/sbin';
}

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Starts PgBouncer for every database of the server at `serverUrl` (host and port taken from it),
 * trusting the user named there (auth_type trust still needs the user in the auth file).
 */
export async function startPgBouncer(serverUrl: string, mode: PoolMode, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error(pgbouncerSkipReason() as string);
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username) || 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'lqs-pgbouncer-'));
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${mode}`,
      ...(options.poolSize ? [`default_pool_size = ${options.poolSize}`] : []),
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    for (const file of [dir, ini, join(dir, 'userlist.txt')]) chownSync(file, uid, gid);
  }
  const child: ChildProcess = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', binary, ini], { stdio: 'ignore' })
    : spawn(binary, [ini], { stdio: 'ignore' });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const started = Date.now();
  while (!(await accepting(port))) {
    if (exited || Date.now() - started > 10_000) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start on port ${port} (${mode} mode)`);
    }
    await sleep(50);
  }
  return {
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async stop() {
      if (!exited) {
        // runuser passes SIGTERM on to pgbouncer, which closes its connections and exits
        child.kill('SIGTERM');
        await Promise.race([gone, sleep(5000)]);
        if (!exited) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
