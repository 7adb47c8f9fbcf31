/** The command lines (the service's and the tools') as a user sees them: help, refusals of bad command lines, and one-line failures. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import pg from 'pg';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const TOOLS = fileURLToPath(new URL('../../tools/main.js', import.meta.url));
const ADMIN_URL = process.env.LQS_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The tools' commands; the others are the service's. */
const TOOL_COMMANDS = new Set(['generate', 'conformance', 'fixtures']);

/**
 * Runs the built command line that has the command (the service's, or the tools' for generate,
 * conformance and fixtures) with only the given variables beside PATH and HOME (so the caller's
 * LQS_* do not leak in).
 */
function lqs(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  return execute(TOOL_COMMANDS.has(args[0] ?? '') ? TOOLS : MAIN, args, env, cwd);
}

function execute(script: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn', ...env },
        cwd,
        timeout: 60_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** A failure: exit 1, exactly one line on stderr, that line, and no stack trace. */
function assertOneLine(run: Run, expected: string | RegExp): void {
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const lines = run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
  assert.equal(lines.length, 1, run.stderr);
  if (typeof expected === 'string') assert.equal(lines[0], `error: ${expected}`);
  else assert.match(lines[0]!, expected);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
}

async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('command line', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('help and bad command lines', () => {
    for (const command of [
      ['serve'],
      ['migrate'],
      ['ingest'],
      ['generate'],
      ['conformance'],
      ['fixtures', 'load'],
      ['demo', 'load'],
      ['admin', 'hash-password'],
    ]) {
      it(`${command.join(' ')} --help prints its usage and exits 0`, async () => {
        // a database that cannot be reached: help must not touch it
        const run = await lqs([...command, '--help'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, new RegExp(`^Usage: ${TOOL_COMMANDS.has(command[0]!) ? 'lqs-tools' : 'lqs'} ${command.join(' ')} `));
        assert.equal(run.stderr, '');
      });
    }

    it('lists the commands with --help and help, and prints the version', async () => {
      for (const args of [['--help'], ['help']]) {
        const run = await lqs(args);
        assert.equal(run.code, 0);
        for (const command of ['serve', 'migrate', 'indexes', 'ingest', 'demo', 'admin'])
          assert.match(run.stdout, new RegExp(`^  ${command}\\b`, 'm'));
        for (const command of TOOL_COMMANDS) assert.doesNotMatch(run.stdout, new RegExp(`^  ${command}\\b`, 'm'));
        const tools = await execute(TOOLS, args);
        assert.equal(tools.code, 0);
        for (const command of TOOL_COMMANDS) assert.match(tools.stdout, new RegExp(`^  ${command}\\b`, 'm'));
      }
      const version = await lqs(['--version']);
      assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    });

    it('refuses unknown commands, options and unexpected arguments with exit 2', async () => {
      const cases: [string[], string][] = [
        [['bogus'], "error: unknown command 'bogus'"],
        [['serve', '--bogus'], "error: unknown option '--bogus'"],
        [['migrate', 'now'], "error: too many arguments for 'migrate'. Expected 0 arguments but got 1."],
        [['demo', 'load', 'twice'], "error: too many arguments for 'load'. Expected 0 arguments but got 1."],
        [
          ['generate', '--scale', 'huge'],
          "error: option '--scale <scale>' argument 'huge' is invalid. Allowed choices are tiny, small, medium, large.",
        ],
        [
          ['generate', '--scale', 'tiny', '--seed', 'x'],
          "error: option '--seed <n>' argument 'x' is invalid. an integer from 0 to 999999999.",
        ],
        [['generate'], "error: required option '--scale <scale>' not specified"],
        [['fixtures', 'load'], "error: missing required argument 'file'"],
        [
          ['conformance', '--backend', 'mysql'],
          "error: option '--backend <backend>' argument 'mysql' is invalid. Allowed choices are pglite, postgres.",
        ],
      ];
      for (const [args, message] of cases) {
        const run = await lqs(args);
        assert.equal(run.code, 2, args.join(' '));
        assert.equal(run.stderr.split('\n')[0], message);
        assert.equal(run.stdout, '');
      }
    });
  });

  describe('one-line failures', () => {
    it('names the variable, the file or the setting of a bad configuration', async () => {
      assertOneLine(await lqs(['serve'], { LQS_PORT: 'abc' }), 'LQS_PORT (port): "abc" is not a number');
      assertOneLine(await lqs(['serve'], { PORT: '70000' }), 'PORT (port): 70000 is not a port (an integer from 0 to 65535)');
      assertOneLine(await lqs(['serve'], { LQS_DB_MIGRATE: 'perhaps' }), 'LQS_DB_MIGRATE (db.migrate): "perhaps" is not true or false');
      assertOneLine(
        await lqs(['serve'], { DATABASE_URL: 'notaurl' }),
        'DATABASE_URL (db.url): "notaurl" is not a PostgreSQL URL (postgres://user:password@host:5432/database)',
      );
      const missing = join(dir, 'missing.yml');
      assertOneLine(await lqs(['serve'], { LQS_CONFIG_FILE: missing }), `config file ${missing} (LQS_CONFIG_FILE) does not exist`);
      const bad = join(dir, 'bad.yml');
      writeFileSync(bad, 'port: [1\nhost: x\n');
      assertOneLine(
        await lqs(['serve'], { LQS_CONFIG_FILE: bad }),
        new RegExp(`^error: config file ${bad} \\(LQS_CONFIG_FILE\\) is not valid YAML: .* at line \\d+, column \\d+$`),
      );
      const unknown = join(dir, 'unknown.yml');
      writeFileSync(unknown, 'port: 1\nprot: 2\n');
      assertOneLine(await lqs(['serve'], { LQS_CONFIG_FILE: unknown }), `config file ${unknown}: prot: unknown setting`);
      const typed = join(dir, 'typed.json');
      writeFileSync(typed, '{"response": {"limit": {"max": "many"}}}');
      assertOneLine(await lqs(['serve'], { LQS_CONFIG_FILE: typed }), `config file ${typed}: response.limit.max: "many" is not a number`);
      mkdirSync(join(dir, 'adir'));
      assertOneLine(
        await lqs(['serve'], { LQS_CONFIG_FILE: join(dir, 'adir') }),
        `config file ${join(dir, 'adir')} (LQS_CONFIG_FILE) is a directory`,
      );
    });

    it('says when PostgreSQL cannot be reached, also with --no-migrate', async () => {
      const server = await listening();
      const { port } = server.address() as { port: number };
      await new Promise((resolve) => server.close(resolve));
      const expected = `cannot connect to PostgreSQL at 127.0.0.1:${port}: connection refused; start the server or correct DATABASE_URL (db.url)`;
      for (const args of [['serve'], ['serve', '--no-migrate'], ['migrate']]) {
        const run = await lqs(args, { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/db` });
        assertOneLine(run, expected);
        assert.doesNotMatch(run.stdout + run.stderr, /database ready/);
      }
      assertOneLine(
        await lqs(['serve'], { DATABASE_URL: 'postgres://postgres@no-such-host.invalid/db' }),
        'cannot resolve the host "no-such-host.invalid" of DATABASE_URL (db.url)',
      );
    });

    it("stops on the database the reference's configuration names, never serving the demo ledger instead", async () => {
      const configPath = join(dir, 'reference-config');
      mkdirSync(configPath);
      writeFileSync(join(configPath, 'application.yml'), 'hiero:\n  mirror:\n    rest:\n      db:\n        port: 1\n');
      for (const env of [{ CONFIG_PATH: configPath }, { HEDERA_MIRROR_REST_DB_PORT: '1' }] as Record<string, string>[]) {
        const run = await lqs(['serve'], { ...env, LQS_DB_DATADIR: 'memory' });
        assert.equal(run.code, 1, run.stderr + run.stdout);
        assert.match(run.stderr, /^error: cannot connect to PostgreSQL at 127\.0\.0\.1:1: connection refused/m);
        assert.doesNotMatch(run.stdout + run.stderr, /demo ledger/);
      }
    });

    it('refuses worker processes over the embedded database', async () => {
      const need =
        'worker processes need PostgreSQL (db.url, DATABASE_URL): the embedded PGlite database can be open in one process only; set server.workers to 1 or use PostgreSQL';
      assertOneLine(
        await lqs(['serve'], { LQS_SERVER_WORKERS: '2', LQS_DB_DATADIR: 'memory' }),
        `LQS_SERVER_WORKERS (server.workers): 2 ${need}`,
      );
      assertOneLine(await lqs(['serve'], { LQS_SERVER_WORKERS: '0' }), `LQS_SERVER_WORKERS (server.workers): 0 ${need}`);
      const file = join(dir, 'workers.yml');
      writeFileSync(file, 'server:\n  workers: 3\n');
      assertOneLine(await lqs(['serve'], { LQS_CONFIG_FILE: file }), `server.workers in ${file}: 3 ${need}`);
      assertOneLine(
        await lqs(['serve'], { LQS_SERVER_WORKERS: '-1' }),
        'LQS_SERVER_WORKERS (server.workers): -1 is not a number of worker processes (an integer from 0, one per core, to 256)',
      );
    });

    it('stops at once, without retrying, when the first worker process cannot start', async () => {
      const server = await listening();
      const { port } = server.address() as { port: number };
      await new Promise((resolve) => server.close(resolve));
      const run = await lqs(['serve'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/db`, LQS_SERVER_WORKERS: '2' });
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      // one worker tried (the others start only after the first is ready), and was not retried
      assert.deepEqual(lines, [
        `error: cannot connect to PostgreSQL at 127.0.0.1:${port}: connection refused; start the server or correct DATABASE_URL (db.url)`,
        "error: a worker process exited (1) before it was ready: the service did not start (the worker's error is above)",
      ]);
    });

    it('names a missing database with the createdb that makes it, and a missing role', async (t) => {
      if (!(await postgresReachable())) return t.skip(`no PostgreSQL server at ${ADMIN_URL} (LQS_TEST_ADMIN_URL)`);
      const url = new URL(ADMIN_URL);
      const host = url.hostname;
      const port = url.port || '5432';
      const user = decodeURIComponent(url.username) || 'postgres';
      url.pathname = '/lqs_no_such_database';
      assertOneLine(
        await lqs(['generate', '--scale', 'tiny', '--no-progress'], { DATABASE_URL: url.href }),
        `database "lqs_no_such_database" does not exist on PostgreSQL at ${host}:${port}: create it with \`createdb -h ${host} -p ${port} -U ${user} lqs_no_such_database\` or name another in DATABASE_URL (db.url)`,
      );
      url.pathname = '/postgres';
      url.username = 'lqs_no_such_role';
      assertOneLine(
        await lqs(['migrate'], { DATABASE_URL: url.href }),
        `PostgreSQL at ${host}:${port} refused the connection: role "lqs_no_such_role" does not exist; create the role (\`createuser lqs_no_such_role\`) or set another user in DATABASE_URL (db.url)`,
      );
    });

    it('names a port in use and the variable that moves it', async () => {
      const server = await listening();
      try {
        const { port } = server.address() as { port: number };
        assertOneLine(
          await lqs(['serve'], { LQS_DB_DATADIR: 'memory', LQS_HOST: '127.0.0.1', PORT: String(port) }),
          `the public listener's port ${port} on 127.0.0.1 is in use by another process; stop it or choose another port (PORT or LQS_PORT)`,
        );
      } finally {
        server.close();
      }
    });

    it('refuses a data directory another process holds', async () => {
      const data = join(dir, 'held');
      mkdirSync(data);
      const release = await lockfile.lock(data, { realpath: false, stale: 10_000 });
      try {
        assertOneLine(
          await lqs(['serve'], { LQS_DB_DATADIR: data, PORT: '0' }),
          `the data directory ${data} (db.dataDir, LQS_DB_DATADIR) is in use by another process (lock ${data}.lock); stop that process, or choose another directory or LQS_DB_DATADIR=memory`,
        );
      } finally {
        await release();
      }
    });

    it('starts at once over the lock of a process that was killed, and refuses while it runs', async () => {
      const data = join(dir, 'killed');
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn' };
      const serve = async () => {
        const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...env, LQS_DB_DATADIR: data, PORT: '0' } });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk) => (out += String(chunk)));
        child.stderr.on('data', (chunk) => (err += String(chunk)));
        let running = true;
        const exited = new Promise<number | null>((resolve) =>
          child.once('exit', (code) => {
            running = false;
            resolve(code);
          }),
        );
        while (running && !out.includes('listening on')) await sleep(50);
        const started = running;
        assert.ok(started, `serve started: ${err}`);
        return { child, exited };
      };
      const first = await serve();
      assertOneLine(await lqs(['serve'], { LQS_DB_DATADIR: data, PORT: '0' }), /is in use by another process/);
      first.child.kill('SIGKILL');
      await first.exited;
      const second = await serve();
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    });

    it('loads the demo ledger once, and says so the second time', async () => {
      const env = { LQS_DB_DATADIR: join(dir, 'demo') };
      const first = await lqs(['demo', 'load'], env);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, 'demo ledger loaded\n');
      const second = await lqs(['demo', 'load'], env);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'the demo ledger is already loaded; nothing to do\n');
    });

    it('prints the stack too at LQS_LOG_LEVEL=debug', async () => {
      const run = await lqs(['serve'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/db', LQS_LOG_LEVEL: 'debug' });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^error: cannot connect to PostgreSQL at 127\.0\.0\.1:1: connection refused/);
      assert.match(run.stderr, /^\s+at /m);
    });
  });
});
