/**
 * The command lines (the service's and the tools') as a user sees them: help, refusals of bad
 * command lines, and one-line failures. The process contract (exit code, the line alone on stderr,
 * no stack) is tested by running the built command lines; the failures whose line is what a case
 * is about run `serve` in this process through the functions the command runs, which is the same
 * line without a Node process started per case.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { chmodSync, cpSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { failureLine } from '../../src/cli/commandLine.js';
import { loadConfig } from '../../src/config.js';
import { openPglite } from '../../src/db/pglite.js';
import { serve } from '../../src/server.js';
import { postgresServerSkipReason, TEST_ADMIN_URL as ADMIN_URL } from '../support/privatePostgres.js';
import { migratedDataDir } from '../../tools/testApp/pglite.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const TOOLS = fileURLToPath(new URL('../../tools/main.js', import.meta.url));

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
function lqs(args: string[], env: Record<string, string> = {}, cwd?: string, user?: { uid: number; gid: number }): Promise<Run> {
  return execute(TOOL_COMMANDS.has(args[0] ?? '') ? TOOLS : MAIN, args, env, cwd, user);
}

function execute(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
  user?: { uid: number; gid: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...BASE_ENV, ...env },
        cwd,
        timeout: 60_000,
        ...user,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** What every run of a command line here gets beside the case's variables (and PATH and HOME). */
const BASE_ENV = { LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn' };

/**
 * The line `lqs serve` stops with under only `env`, in this process: the configuration read as the
 * command reads it, `serve`, and the command line's failure line. A serve that started instead
 * fails the case (and would keep listening).
 */
async function serveFailure(env: Record<string, string>): Promise<string> {
  const vars: Record<string, string> = { ...BASE_ENV, ...env };
  try {
    await serve({ migrate: true, loaded: loadConfig(vars, vars.LQS_CONFIG_FILE, () => {}) });
  } catch (err) {
    return failureLine(err, vars);
  }
  assert.fail(`serve started under ${JSON.stringify(env)}`);
}

/** The failure line of serveFailure is `error: ` and `expected` (or matches it). */
function assertLine(line: string, expected: string | RegExp): void {
  if (typeof expected === 'string') assert.equal(line, `error: ${expected}`);
  else assert.match(line, expected);
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

describe('command line', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * A data directory holding a migrated database, copied from one made once from the test
   * snapshot: the commands that open one then skip initdb and the migrations, which are not what
   * these tests are about.
   */
  let template: Promise<string> | undefined;
  const migratedTemplate = (): Promise<string> => {
    template ??= migratedDataDir(join(dir, 'migrated')).then(() => join(dir, 'migrated'));
    return template;
  };
  const migratedCopy = async (name: string): Promise<string> => {
    const copy = join(dir, name);
    cpSync(await migratedTemplate(), copy, { recursive: true });
    return copy;
  };

  describe('help and bad command lines', () => {
    for (const command of [
      ['serve'],
      ['config'],
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
        for (const command of ['serve', 'config', 'migrate', 'indexes', 'ingest', 'demo', 'admin'])
          assert.match(run.stdout, new RegExp(`^  ${command}\\b`, 'm'));
        for (const command of TOOL_COMMANDS) assert.doesNotMatch(run.stdout, new RegExp(`^  ${command}\\b`, 'm'));
        const tools = await execute(TOOLS, args);
        assert.equal(tools.code, 0);
        for (const command of TOOL_COMMANDS) assert.match(tools.stdout, new RegExp(`^  ${command}\\b`, 'm'));
      }
      const version = await lqs(['--version']);
      assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    });

    it('exits 0 without a stack when the reader closes the pipe before the help is written', async () => {
      // `lqs --help | grep -q serve`: grep ends at its first match and closes the pipe
      for (const script of [MAIN, TOOLS]) {
        const child = spawn(process.execPath, [script, '--help'], { env: { PATH: process.env.PATH ?? '', ...BASE_ENV } });
        child.stdout.destroy();
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
        assert.equal(code, 0, stderr);
        assert.equal(stderr, '');
      }
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

  describe('the effective configuration', () => {
    it('prints every setting with its value, secrets masked, and where it came from', async () => {
      const configPath = join(dir, 'print-config');
      mkdirSync(configPath);
      const file = join(configPath, 'application.yml');
      writeFileSync(
        file,
        'hiero:\n  mirror:\n    rest:\n      db:\n        host: pg.internal\n        password: s3cret\n      metrics:\n        config:\n          password: scrape-pw\n      cache:\n        response:\n          enabled: true\n      redis:\n        uri: redis://:redis-pw@cache:6379\n',
      );
      const env = { CONFIG_PATH: configPath, LQS_RESPONSE_LIMIT_MAX: '50', LQS_ADMIN_USERS: 'ops:hunter2' };
      const run = await lqs(['config', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const printed = JSON.parse(run.stdout) as Record<string, { value: unknown; from: string }>;
      assert.deepEqual(printed['db.url'], {
        value: 'postgres://mirror_api:****@pg.internal:5432/mirror_node',
        from: `hiero.mirror.rest.db.host in ${file}, hiero.mirror.rest.db.password in ${file}`,
      });
      assert.deepEqual(printed['metrics.config.password'], { value: '****', from: `hiero.mirror.rest.metrics.config.password in ${file}` });
      assert.equal(printed['cache.redis.url']?.value, 'redis://:****@cache:6379');
      assert.deepEqual(printed['admin.users'], { value: ['ops:****'], from: 'LQS_ADMIN_USERS (admin.users)' });
      assert.deepEqual(printed['response.limit.max'], { value: 50, from: 'LQS_RESPONSE_LIMIT_MAX (response.limit.max)' });
      assert.deepEqual(printed['response.limit.default'], { value: 25, from: 'default' });
      assert.deepEqual(printed.realm, { value: '0', from: 'default' });
      for (const secret of ['s3cret', 'scrape-pw', 'redis-pw', 'hunter2']) assert.doesNotMatch(run.stdout, new RegExp(secret));

      const yaml = await lqs(['serve', '--print-config', '--no-migrate'], env);
      assert.equal(yaml.code, 0, yaml.stderr);
      assert.match(yaml.stdout, /^db\.migrate:\n {2}value: false\n {2}from: command line \(--no-migrate\)$/m);
      assert.match(yaml.stdout, /^response\.limit\.max:\n {2}value: 50\n/m);
      assert.doesNotMatch(yaml.stdout + yaml.stderr, /s3cret|listening|database ready/);

      // the keys without a meaning here: one warning line at start-up, however many there are
      const warned = await lqs(['config'], {
        ...env,
        HIERO_MIRROR_REST_STATEPROOF_ENABLED: 'true',
        HIERO_MIRROR_REST_METRICS_IPMETRICS: 'true',
      });
      assert.equal(warned.code, 0, warned.stderr);
      assert.deepEqual(
        warned.stderr.split('\n').filter((l) => l !== ''),
        [
          'warning: ignoring settings of the reference that have no meaning in this service: HIERO_MIRROR_REST_STATEPROOF_ENABLED, HIERO_MIRROR_REST_METRICS_IPMETRICS',
        ],
      );
    });
  });

  describe('one-line failures', () => {
    it('names the variable, the file or the setting of a bad configuration', async () => {
      // the process contract once; the lines in this process
      assertOneLine(await lqs(['serve'], { LQS_PORT: 'abc' }), 'LQS_PORT (port): "abc" is not a number');
      assertLine(await serveFailure({ LQS_PORT: 'abc' }), 'LQS_PORT (port): "abc" is not a number');
      assertLine(await serveFailure({ PORT: '70000' }), 'PORT (port): 70000 is not a port (an integer from 0 to 65535)');
      assertLine(await serveFailure({ LQS_DB_MIGRATE: 'perhaps' }), 'LQS_DB_MIGRATE (db.migrate): "perhaps" is not true or false');
      assertLine(
        await serveFailure({ DATABASE_URL: 'notaurl' }),
        'DATABASE_URL (db.url): "notaurl" is not a PostgreSQL URL (postgres://user:password@host:5432/database)',
      );
      const missing = join(dir, 'missing.yml');
      assertLine(await serveFailure({ LQS_CONFIG_FILE: missing }), `config file ${missing} (LQS_CONFIG_FILE) does not exist`);
      const bad = join(dir, 'bad.yml');
      writeFileSync(bad, 'port: [1\nhost: x\n');
      assertLine(
        await serveFailure({ LQS_CONFIG_FILE: bad }),
        new RegExp(`^error: config file ${bad} \\(LQS_CONFIG_FILE\\) is not valid YAML: .* at line \\d+, column \\d+$`),
      );
      const unknown = join(dir, 'unknown.yml');
      writeFileSync(unknown, 'port: 1\nprot: 2\n');
      assertLine(await serveFailure({ LQS_CONFIG_FILE: unknown }), `config file ${unknown}: prot: unknown setting`);
      const typed = join(dir, 'typed.json');
      writeFileSync(typed, '{"response": {"limit": {"max": "many"}}}');
      assertLine(await serveFailure({ LQS_CONFIG_FILE: typed }), `config file ${typed}: response.limit.max: "many" is not a number`);
      mkdirSync(join(dir, 'adir'));
      assertLine(
        await serveFailure({ LQS_CONFIG_FILE: join(dir, 'adir') }),
        `config file ${join(dir, 'adir')} (LQS_CONFIG_FILE) is a directory`,
      );
    });

    it('says when PostgreSQL cannot be reached, also with --no-migrate', async () => {
      const server = await listening();
      const { port } = server.address() as { port: number };
      await new Promise((resolve) => server.close(resolve));
      const expected = `cannot connect to PostgreSQL at 127.0.0.1:${port}: connection refused; start the server or correct DATABASE_URL (db.url)`;
      // serve's and migrate's own paths to the database as processes; serve's line in this process too
      for (const args of [['serve', '--no-migrate'], ['migrate']]) {
        const run = await lqs(args, { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/db` });
        assertOneLine(run, expected);
        assert.doesNotMatch(run.stdout + run.stderr, /database ready/);
      }
      assertLine(await serveFailure({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/db` }), expected);
      assertLine(
        await serveFailure({ DATABASE_URL: 'postgres://postgres@no-such-host.invalid/db' }),
        'cannot resolve the host "no-such-host.invalid" of DATABASE_URL (db.url)',
      );
    });

    it("stops on the database the reference's configuration names, never serving the demo ledger instead", async () => {
      const configPath = join(dir, 'reference-config');
      mkdirSync(configPath);
      writeFileSync(join(configPath, 'application.yml'), 'hiero:\n  mirror:\n    rest:\n      db:\n        port: 1\n');
      // serving the demo ledger instead would be a serve that started, which serveFailure refuses
      for (const env of [{ CONFIG_PATH: configPath }, { HEDERA_MIRROR_REST_DB_PORT: '1' }] as Record<string, string>[]) {
        const line = await serveFailure({ ...env, LQS_DB_DATADIR: 'memory' });
        assert.match(line, /^error: cannot connect to PostgreSQL at 127\.0\.0\.1:1: connection refused/);
        assert.doesNotMatch(line, /demo ledger/);
      }
      // the line names where the database came from, not DATABASE_URL
      assertLine(
        await serveFailure({ CONFIG_PATH: configPath }),
        `cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; start the server or correct hiero.mirror.rest.db.port in ${join(configPath, 'application.yml')}`,
      );
      assertLine(
        await serveFailure({ HIERO_MIRROR_REST_DB_PORT: '1' }),
        'cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; start the server or correct HIERO_MIRROR_REST_DB_PORT',
      );
    });

    it('refuses worker processes over the embedded database', async () => {
      const need =
        'worker processes need PostgreSQL (db.url, DATABASE_URL): the embedded PGlite database can be open in one process only; set server.workers to 1 or use PostgreSQL';
      assertOneLine(
        await lqs(['serve'], { LQS_SERVER_WORKERS: '2', LQS_DB_DATADIR: 'memory' }),
        `LQS_SERVER_WORKERS (server.workers): 2 ${need}`,
      );
      assertLine(await serveFailure({ LQS_SERVER_WORKERS: '0' }), `LQS_SERVER_WORKERS (server.workers): 0 ${need}`);
      const file = join(dir, 'workers.yml');
      writeFileSync(file, 'server:\n  workers: 3\n');
      assertLine(await serveFailure({ LQS_CONFIG_FILE: file }), `server.workers in ${file}: 3 ${need}`);
      assertLine(
        await serveFailure({ LQS_SERVER_WORKERS: '-1' }),
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
      const missing = await postgresServerSkipReason(ADMIN_URL);
      if (missing) return t.skip(missing);
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
        // a database that opens (in memory; the ports are checked before it is)
        assertOneLine(
          await lqs(['serve'], { LQS_DB_DATADIR: 'memory', LQS_HOST: '127.0.0.1', PORT: String(port) }),
          `the public listener's port ${port} on 127.0.0.1 is in use by another process; stop it or choose another port (PORT or LQS_PORT)`,
        );
        // found before the database is opened: the port's line, not the unreachable database's
        assertLine(
          await serveFailure({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', LQS_HOST: '127.0.0.1', PORT: String(port) }),
          `the public listener's port ${port} on 127.0.0.1 is in use by another process; stop it or choose another port (PORT or LQS_PORT)`,
        );
        assertLine(
          await serveFailure({
            DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
            LQS_PORT: '0',
            LQS_ADMIN_ENABLED: 'true',
            LQS_ADMIN_HOST: '127.0.0.1',
            LQS_ADMIN_PORT: String(port),
          }),
          `the admin listener's port ${port} on 127.0.0.1 is in use by another process; stop it or choose another admin.port (LQS_ADMIN_PORT)`,
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
      const data = await migratedCopy('killed');
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

    describe('the data directory of the embedded database', () => {
      let migrated: string;
      before(async () => {
        // the copies' template, which `lqs migrate` finds up to date (whichever test made it first)
        migrated = await migratedTemplate();
        const run = await lqs(['migrate'], { LQS_DB_DATADIR: migrated });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, 'schema is up to date\n');
      });

      /** A copy of the migrated data directory with `bytes` written over `file` (relative to it) from its start. */
      const damaged = (name: string, file: string, bytes: Buffer) => {
        const copy = join(dir, name);
        cpSync(migrated, copy, { recursive: true });
        const fd = openSync(join(copy, file), 'r+');
        writeSync(fd, bytes, 0, bytes.length, 0);
        closeSync(fd);
        return copy;
      };

      it("names a damaged one (its control file, a table's pages), the cause and the fix", async () => {
        const control = damaged('damaged-control', 'global/pg_control', Buffer.alloc(512, 0x5a));
        assertOneLine(
          await lqs(['serve'], { LQS_DB_DATADIR: control, PORT: '0' }),
          `the data directory ${control} (db.dataDir, LQS_DB_DATADIR) is damaged or not a data directory of this PGlite version (PGlite failed to initialize properly); restore it from a backup, or move it aside to start with a new, empty one`,
        );
        const db = await openPglite(migrated);
        const [{ path }] = (await db.query<{ path: string }>("select pg_relation_filepath('record_file') as path")) as [{ path: string }];
        await db.close();
        const table = damaged('damaged-table', path, Buffer.alloc(8192, 0x5a));
        assertLine(
          await serveFailure({ LQS_DB_DATADIR: table, PORT: '0' }),
          `the data directory ${table} (db.dataDir, LQS_DB_DATADIR) is damaged or not a data directory of this PGlite version (invalid page in block 0 of relation "${path}"); restore it from a backup, or move it aside to start with a new, empty one`,
        );
      });

      it('names one this user may not write, and the fix', async (t) => {
        // as root every permission is granted: the command runs as nobody
        const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
        const uid = user?.uid ?? process.getuid!();
        // nobody must be able to run this Node and read the built command line (a Node installed
        // into a private folder may not let it)
        const usable = user ? await lqs(['--version'], {}, undefined, user) : { code: 0, stderr: '' };
        if (usable.code !== 0) {
          t.skip(`nobody cannot run ${process.execPath} with the built command line: ${usable.stderr.trim() || `exit ${usable.code}`}`);
          return;
        }
        const parent = join(dir, 'unwritable');
        mkdirSync(parent);
        chmodSync(dir, 0o755);
        chmodSync(parent, 0o777);
        const data = join(parent, 'data');
        cpSync(migrated, data, { recursive: true });
        execFileSync('chown', ['-R', String(uid), data]);
        chmodSync(data, 0o500);
        assertOneLine(
          await lqs(['serve'], { LQS_DB_DATADIR: data, PORT: '0' }, undefined, user),
          `the data directory ${data} (db.dataDir, LQS_DB_DATADIR) cannot be written by this user (uid ${uid}): permission denied; allow it (\`chmod u+rwx ${data}\`) or choose another directory`,
        );
        chmodSync(data, 0o700);
      });

      const tmpfs = join(tmpdir(), `lqs-cli-full-${process.pid}`);
      const mounted = (() => {
        if (process.getuid?.() !== 0) return false;
        try {
          mkdirSync(tmpfs, { recursive: true });
          execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', tmpfs], { stdio: 'ignore' });
          return true;
        } catch {
          return false;
        }
      })();
      after(() => {
        if (mounted) execFileSync('umount', [tmpfs]);
        rmSync(tmpfs, { recursive: true, force: true });
      });

      it('names a full disk, and the fix', { skip: mounted ? false : 'needs root to mount a 1 MiB tmpfs' }, async () => {
        const data = join(tmpfs, 'data');
        assertOneLine(
          await lqs(['migrate'], { LQS_DB_DATADIR: data }),
          `no space left for the data directory ${data} (db.dataDir, LQS_DB_DATADIR): the disk or quota is full (ENOSPC); free space there (\`df -h ${data}\`) or choose another directory`,
        );
      });
    });

    it('loads the demo ledger once, and says so the second time', async () => {
      const env = { LQS_DB_DATADIR: await migratedCopy('demo') };
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
