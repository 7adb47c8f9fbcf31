/**
 * A private PostgreSQL server for fault tests: its own data directory and port, started, stopped
 * and restarted by the test, removed afterwards. Runs the server binaries as the `postgres` user
 * when the tests run as root (PostgreSQL refuses to run as root).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../tools/db/freePort.js';
import { DEFAULT_ADMIN_URL } from '../../tools/db/scratch.js';

export { freePort };

/** The first folder holding `initdb` and `pg_ctl`: `pg_config --bindir`, then PATH, then Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(
      execFileSync('pg_config', ['--bindir'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    );
  } catch {
    // no pg_config on PATH
  }
  candidates.push(...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''));
  const root = '/usr/lib/postgresql';
  if (existsSync(root))
    candidates.push(
      ...readdirSync(root)
        .sort()
        .reverse()
        .map((v) => join(root, v, 'bin')),
    );
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) ?? null;
}

/** Why tests needing the server binaries cannot run here, or false when they can. */
export function privatePostgresSkipReason(): string | false {
  return postgresBinDir()
    ? false
    : 'needs the PostgreSQL server binaries (initdb, pg_ctl), found through pg_config --bindir, PATH or /usr/lib/postgresql: none here';
}

/** The PostgreSQL server the tests create their databases on. */
export const TEST_ADMIN_URL = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;

const serverChecks = new Map<string, Promise<string | false>>();

/**
 * Why tests needing the PostgreSQL server at `adminUrl` cannot run here, or false when they can: one
 * line naming the server, the variable that moves it and the cause, the same for every such test
 * (asked once per process and server).
 */
export function postgresServerSkipReason(adminUrl: string = TEST_ADMIN_URL): Promise<string | false> {
  let check = serverChecks.get(adminUrl);
  if (!check) {
    check = probePostgresServer(adminUrl);
    serverChecks.set(adminUrl, check);
  }
  return check;
}

async function probePostgresServer(adminUrl: string): Promise<string | false> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return false;
  } catch (err) {
    const where = new URL(adminUrl);
    return `needs a PostgreSQL server at ${where.hostname}:${where.port || 5432} (LQS_TEST_ADMIN_URL): ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The uid and gid of the `postgres` user. */
function postgresIds(): [number, number] {
  return [
    Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  ];
}

function binDir(): string {
  const dir = postgresBinDir();
  if (!dir) throw new Error(privatePostgresSkipReason() as string);
  return dir;
}

export interface PrivatePostgres {
  port: number;
  adminUrl: string;
  start(): void;
  stop(): void;
  destroy(): void;
}

/** A server certificate and its key (PEM files), for a server started with `ssl=on`. */
export interface ServerTls {
  certFile: string;
  keyFile: string;
}

export async function createPrivatePostgres(options: { tls?: ServerTls } = {}): Promise<PrivatePostgres> {
  return privateServer(
    (run, data) => run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']),
    options.tls,
  );
}

/**
 * A streaming standby of `primary` (whose default pg_hba.conf trusts local replication
 * connections): a base backup taken with `pg_basebackup -R -X stream -c fast` (a spread checkpoint
 * after a large load takes minutes), started on its own port as a
 * hot standby.
 */
export async function createStandby(primary: PrivatePostgres): Promise<PrivatePostgres> {
  return privateServer((run, data) =>
    run('pg_basebackup', [
      '-D',
      data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '--no-sync',
    ]),
  );
}

async function privateServer(
  create: (run: (tool: string, args: string[]) => Buffer, data: string) => void,
  tls?: ServerTls,
): Promise<PrivatePostgres> {
  const bin = binDir();
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]) => {
    const command = join(bin, tool);
    return asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  };
  const dir = mkdtempSync(join(tmpdir(), 'lqs-pg-'));
  if (asRoot) chownSync(dir, ...postgresIds());
  const data = join(dir, 'data');
  try {
    create(run, data);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const port = await freePort();
  let options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  if (tls) {
    // the server reads its key only when the server's user owns it and no one else may read it
    const cert = join(dir, 'server.crt');
    const key = join(dir, 'server.key');
    copyFileSync(tls.certFile, cert);
    copyFileSync(tls.keyFile, key);
    chmodSync(key, 0o600);
    if (asRoot) for (const file of [cert, key]) chownSync(file, ...postgresIds());
    options += ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
  }
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

/**
 * Other clients taking every connection slot the server of `adminUrl` has left: connects until the
 * server answers "too many clients" (53300). The caller ends them; on any other failure the ones
 * already connected are ended here.
 */
export async function takeEverySlot(adminUrl: string): Promise<pg.Client[]> {
  const others: pg.Client[] = [];
  try {
    for (;;) {
      const client = new pg.Client({ connectionString: adminUrl });
      client.on('error', () => undefined);
      try {
        await client.connect();
      } catch (err) {
        if (!/too many clients/.test((err as Error).message)) throw err;
        return others;
      }
      others.push(client);
    }
  } catch (err) {
    await Promise.all(others.map((c) => c.end().catch(() => undefined)));
    throw err;
  }
}
