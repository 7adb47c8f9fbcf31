import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Logger } from 'pino';
import { ADMIN_BODY_LIMIT, buildAdminApp } from '../../src/admin/app.js';
import { hashPasswordCommand } from '../../src/admin/cli.js';
import { CredentialsError, hashPassword } from '../../src/admin/credentials.js';
import { FailureTracker } from '../../src/admin/lockout.js';
import { defaultConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { errorOf } from '../support/harness.js';

const USER = 'ops';
const PASSWORD = 'correct horse';

type LogLine = Record<string, unknown> & { level: number; msg?: string };

interface Admin {
  app: FastifyInstance;
  logger: Logger;
  lines: LogLine[];
  raw: string[];
  /** moves the lockout clock on */
  advance(ms: number): void;
}

async function adminApp(
  admin: Partial<Config['admin']> = { users: [`${USER}:${PASSWORD}`] },
  refusalLogIntervalMs?: number,
): Promise<Admin> {
  const config = defaultConfig();
  Object.assign(config.admin, admin);
  const raw: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void raw.push(line) });
  let now = 1_700_000_000_000;
  const app = await buildAdminApp({ config, logger, nowMs: () => now, refusalLogIntervalMs });
  return {
    app,
    logger,
    raw,
    get lines() {
      return raw.map((l) => JSON.parse(l) as LogLine);
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
const AUTH = basic(USER, PASSWORD);

function post(app: FastifyInstance, payload: string, headers: Record<string, string> = {}, extra: Partial<InjectOptions> = {}) {
  return app.inject({
    method: 'POST',
    url: '/change-log-level',
    payload,
    headers: { authorization: AUTH, 'content-type': 'application/json', ...headers },
    ...extra,
  });
}

async function currentLevel(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ url: '/change-log-level', headers: { authorization: AUTH } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().level;
}

const warnings = (a: Admin, msg: string) => a.lines.filter((l) => l.level === 40 && l.msg === msg);

describe('admin listener: POST /change-log-level', () => {
  it('changes the level to each allowed value and answers in text', async () => {
    const a = await adminApp();
    assert.equal(await currentLevel(a.app), 'info');
    for (const level of ['debug', 'silly', 'warn', 'error', 'info']) {
      const res = await post(a.app, JSON.stringify({ level }));
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.equal(res.body, `Logging level changed to: ${level}`);
      assert.equal(await currentLevel(a.app), level);
      assert.equal(a.logger.level, level === 'silly' ? 'trace' : level);
    }
  });

  it('echoes a well-formed X-Request-Id, refusals included, and logs the request with it', async () => {
    const admin = await adminApp();
    const { app } = admin;
    const ok = await post(app, '{"level":"info"}', { 'x-request-id': 'ops-change-1' });
    assert.equal(ok.headers['x-request-id'], 'ops-change-1');
    const refused = await app.inject({ url: '/change-log-level', headers: { 'x-request-id': 'ops-probe-2' } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['x-request-id'], 'ops-probe-2');
    assert.match(
      String((await app.inject({ url: '/change-log-level', headers: { 'x-request-id': 'bad id' } })).headers['x-request-id']),
      /^[0-9a-f-]{36}$/,
    );
    const completed = admin.lines.find((l) => l.requestId === 'ops-change-1' && l.msg === 'request completed');
    assert.equal(completed?.status, 200);
    assert.equal(completed?.method, 'POST');
    assert.equal(completed?.route, '/change-log-level');
    await app.close();
  });

  it('accepts a charset parameter on the JSON content type', async () => {
    const a = await adminApp();
    const res = await post(a.app, '{"level":"debug"}', { 'content-type': 'Application/JSON; charset=utf-8' });
    assert.equal(res.statusCode, 200);
    assert.equal(a.logger.level, 'debug');
  });

  it('logs every change at warn with the user and the client address, never the password, also when switching to error', async () => {
    const a = await adminApp();
    await post(a.app, '{"level":"error"}', {}, { remoteAddress: '10.1.2.3' });
    await post(a.app, '{"level":"debug"}', {}, { remoteAddress: '10.1.2.3' });
    const changes = warnings(a, 'log level changed');
    assert.deepEqual(
      changes.map((l) => [l.user, l.clientAddress, l.from, l.to]),
      [
        [USER, '10.1.2.3', 'info', 'error'],
        [USER, '10.1.2.3', 'error', 'debug'],
      ],
    );
    assert.ok(!a.raw.join('').includes(PASSWORD));
    assert.ok(!a.raw.join('').includes(AUTH.slice(6)));
  });

  const invalid: [string, string | undefined, string, string[]][] = [
    ['a text/plain body', 'text/plain', '{"level":"debug"}', ['Content-Type must be application/json']],
    ['a form body', 'application/x-www-form-urlencoded', 'level=debug', ['Content-Type must be application/json']],
    ['no content type', undefined, '{"level":"debug"}', ['Content-Type must be application/json']],
    ['a malformed content type', 'json please', '{"level":"debug"}', ['Content-Type must be application/json']],
    ['an empty body', 'application/json', '', ['Request body is missing: expected {"level": "<level>"}']],
    ['malformed JSON', 'application/json', '{"level":', ['Request body is not valid JSON']],
    ['a JSON array', 'application/json', '["debug"]', ['Request body must be a JSON object: expected {"level": "<level>"}']],
    ['a JSON string', 'application/json', '"debug"', ['Request body must be a JSON object: expected {"level": "<level>"}']],
    ['JSON null', 'application/json', 'null', ['Request body must be a JSON object: expected {"level": "<level>"}']],
    ['no level field', 'application/json', '{}', ['Missing field: level']],
    ['another field instead', 'application/json', '{"lvl":"debug"}', ['Missing field: level', 'Unknown field: lvl']],
    ['an extra field', 'application/json', '{"level":"debug","all":true}', ['Unknown field: all']],
    ['a prototype key', 'application/json', '{"level":"debug","__proto__":{}}', ['Unknown field: __proto__']],
    ['an unknown level', 'application/json', '{"level":"verbose"}', ['Invalid level: must be one of error, warn, info, debug, silly']],
    ['a pino-only level', 'application/json', '{"level":"trace"}', ['Invalid level: must be one of error, warn, info, debug, silly']],
    ['an upper-case level', 'application/json', '{"level":"DEBUG"}', ['Invalid level: must be one of error, warn, info, debug, silly']],
    ['a numeric level', 'application/json', '{"level":20}', ['Invalid level: must be one of error, warn, info, debug, silly']],
    ['a null level', 'application/json', '{"level":null}', ['Invalid level: must be one of error, warn, info, debug, silly']],
    [
      'an oversize body',
      'application/json',
      JSON.stringify({ level: 'debug', pad: 'x'.repeat(ADMIN_BODY_LIMIT) }),
      [`Request body is larger than ${ADMIN_BODY_LIMIT} bytes`],
    ],
  ];
  for (const [name, contentType, payload, messages] of invalid) {
    it(`answers 400 for ${name}, leaves the level unchanged and logs the refusal`, async () => {
      const a = await adminApp();
      const headers: Record<string, string> = { authorization: AUTH };
      if (contentType !== undefined) headers['content-type'] = contentType;
      const res = await a.app.inject({ method: 'POST', url: '/change-log-level', payload, headers, remoteAddress: '10.9.9.9' });
      assert.equal(res.statusCode, 400);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), errorOf(...messages));
      assert.equal(a.logger.level, 'info');
      assert.equal(await currentLevel(a.app), 'info');
      const refusals = warnings(a, 'log level change refused');
      assert.equal(refusals.length, 1);
      assert.equal(refusals[0]!.user, USER);
      assert.equal(refusals[0]!.clientAddress, '10.9.9.9');
    });
  }

  it('does not count a bad request as an authentication failure', async () => {
    const a = await adminApp({ users: [`${USER}:${PASSWORD}`], maxFailures: 2 });
    for (let i = 0; i < 4; i++) assert.equal((await post(a.app, '{}')).statusCode, 400);
    assert.equal((await post(a.app, '{"level":"warn"}')).statusCode, 200);
  });

  it('answers unknown routes and methods with a JSON 404, without asking for credentials', async () => {
    const a = await adminApp();
    for (const [method, url] of [
      ['GET', '/'],
      ['GET', '/api/v1/blocks'],
      ['PUT', '/change-log-level'],
      ['DELETE', '/change-log-level'],
    ] as const) {
      const res = await a.app.inject({ method, url });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), errorOf('Not found'));
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const bad = await a.app.inject({ url: '/%zz' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), errorOf('Invalid URL: it is not correctly percent-encoded'));
  });
});

describe('admin listener: authentication', () => {
  const cases: [string, Record<string, string>, string, string | undefined][] = [
    ['no Authorization header', {}, 'Missing or bad formatted authorization header', undefined],
    ['another scheme', { authorization: 'Bearer abc' }, 'Missing or bad formatted authorization header', undefined],
    ['a Basic header without credentials', { authorization: 'Basic' }, 'Missing or bad formatted authorization header', undefined],
    [
      'credentials without a colon',
      { authorization: 'Basic ' + Buffer.from('opsonly').toString('base64') },
      'Missing or bad formatted authorization header',
      undefined,
    ],
    ['a header that is not base64', { authorization: 'Basic ops:pw' }, 'Missing or bad formatted authorization header', undefined],
    ['a wrong user', { authorization: basic('root', PASSWORD) }, 'Invalid user name or password', 'root'],
    ['a wrong password', { authorization: basic(USER, 'wrong') }, 'Invalid user name or password', USER],
    ['an empty password', { authorization: basic(USER, '') }, 'Invalid user name or password', USER],
    ['the password with another case', { authorization: basic(USER, PASSWORD.toUpperCase()) }, 'Invalid user name or password', USER],
  ];
  for (const [name, headers, message, user] of cases) {
    it(`answers 401 with a challenge for ${name}, on GET and POST, and logs it`, async () => {
      const a = await adminApp();
      for (const method of ['GET', 'POST'] as const) {
        const res = await a.app.inject({
          method,
          url: '/change-log-level',
          headers: { ...headers, 'content-type': 'application/json' },
          payload: method === 'POST' ? '{"level":"debug"}' : undefined,
          remoteAddress: '10.0.0.7',
        });
        assert.equal(res.statusCode, 401);
        assert.match(String(res.headers['www-authenticate']), /^Basic realm="ledger-query-service admin"/);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(res.json(), errorOf(message));
      }
      assert.equal(a.logger.level, 'info');
      const failures = warnings(a, 'admin authentication failed');
      assert.equal(failures.length, 2);
      for (const f of failures) {
        assert.equal(f.user, user);
        assert.equal(f.clientAddress, '10.0.0.7');
        assert.equal(f.reason, message);
      }
      assert.ok(!a.raw.join('').includes('wrong'));
    });
  }

  it('refuses every request when no credentials are configured, and says so once when built', async () => {
    const a = await adminApp({ users: [], usersFile: '', maxFailures: 0 });
    const startup = warnings(a, 'no admin credentials configured (admin.users, admin.usersFile): /change-log-level refuses every request');
    assert.equal(startup.length, 1);
    for (const headers of [
      {},
      { authorization: basic('', '') },
      { authorization: basic(USER, PASSWORD) },
      { authorization: basic('admin', 'admin') },
    ]) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await a.app.inject({
          method,
          url: '/change-log-level',
          headers: { ...headers, 'content-type': 'application/json' },
          payload: method === 'POST' ? '{"level":"debug"}' : undefined,
        });
        assert.equal(res.statusCode, 401);
        assert.match(String(res.headers['www-authenticate']), /^Basic realm=/);
        if ('authorization' in headers)
          assert.deepEqual(res.json(), errorOf('No admin credentials are configured: every request is refused'));
      }
    }
    assert.equal(a.logger.level, 'info');
    assert.equal(
      warnings(a, 'no admin credentials configured (admin.users, admin.usersFile): /change-log-level refuses every request').length,
      1,
    );
  });

  it('accepts scrypt-hashed passwords and refuses wrong ones', async () => {
    const hash = await hashPassword(PASSWORD);
    assert.match(hash, /^scrypt\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
    assert.notEqual(hash, await hashPassword(PASSWORD), 'salted');
    // four verifications in a row: above the default bound of scrypt verifications a second
    const a = await adminApp({ users: [`${USER}:${hash}`], maxVerificationsPerSecond: 10 });
    assert.equal((await post(a.app, '{"level":"debug"}')).statusCode, 200);
    assert.equal(a.logger.level, 'debug');
    const wrong = await post(a.app, '{"level":"warn"}', { authorization: basic(USER, 'nope') });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), errorOf('Invalid user name or password'));
    // the hash itself is not a password
    assert.equal((await post(a.app, '{"level":"warn"}', { authorization: basic(USER, hash) })).statusCode, 401);
    const unknown = await post(a.app, '{"level":"warn"}', { authorization: basic('nobody', PASSWORD) });
    assert.equal(unknown.statusCode, 401);
    assert.equal(a.logger.level, 'debug');
  });

  it('reads further users from admin.usersFile, skipping comments and blank lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqs-admin-'));
    try {
      const file = join(dir, 'users');
      writeFileSync(file, `# admin users\n\nalice:${await hashPassword('alice pw')}\r\n  bob:bob:pw with colon  \n`);
      const a = await adminApp({ users: [`${USER}:${PASSWORD}`], usersFile: file });
      assert.equal((await post(a.app, '{"level":"debug"}', { authorization: basic('alice', 'alice pw') })).statusCode, 200);
      assert.equal((await post(a.app, '{"level":"warn"}', { authorization: basic('bob', 'bob:pw with colon') })).statusCode, 200);
      assert.equal((await post(a.app, '{"level":"info"}')).statusCode, 200);
      assert.equal((await post(a.app, '{"level":"debug"}', { authorization: basic('alice', 'bob:pw with colon') })).statusCode, 401);
      assert.equal(
        warnings(a, 'log level changed')
          .map((l) => l.user)
          .join(),
        'alice,bob,ops',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects malformed credential entries at start-up without showing the secret', async () => {
    for (const [entry, pattern] of [
      ['nopassword', /admin\.users\[0\]: expected user:password/],
      [':secretpw', /admin\.users\[0\]: expected user:password/],
      ['ops:', /admin\.users\[0\]: expected user:password/],
      ['ops:scrypt$notbase64!$abc', /admin\.users\[0\]: malformed scrypt hash/],
      ['ops:scrypt$c2FsdA==', /admin\.users\[0\]: malformed scrypt hash/],
      ['ops:scrypt$c2FsdA==$c2hvcnQ=', /admin\.users\[0\]: malformed scrypt hash/],
    ] as const) {
      await assert.rejects(
        adminApp({ users: [entry] }),
        (err: Error) => err instanceof CredentialsError && pattern.test(err.message) && !err.message.includes('secretpw'),
        entry,
      );
    }
    await assert.rejects(adminApp({ users: ['ops:a', 'ops:b'] }), /admin\.users\[1\]: user "ops" is given more than once/);
    await assert.rejects(
      adminApp({ users: [], usersFile: '/nonexistent/lqs-users' }),
      /admin\.usersFile: cannot read \/nonexistent\/lqs-users/,
    );
  });

  it('hash-password prints an entry whose password authenticates', async () => {
    const entry = await hashPasswordCommand('carol', Readable.from(['s3cret pass\n']));
    assert.match(entry, /^carol:scrypt\$/);
    const a = await adminApp({ users: [entry] });
    assert.equal((await post(a.app, '{"level":"debug"}', { authorization: basic('carol', 's3cret pass') })).statusCode, 200);
    assert.equal((await post(a.app, '{"level":"debug"}', { authorization: basic('carol', 's3cret pass\n') })).statusCode, 401);
    assert.match(await hashPasswordCommand(undefined, Readable.from(['pw'])), /^scrypt\$/);
    await assert.rejects(hashPasswordCommand('carol', Readable.from(['\n'])), /no password on stdin/);
    await assert.rejects(hashPasswordCommand('a:b', Readable.from(['pw'])), /user name/);
  });
});

describe('admin listener: lockout after repeated failures', () => {
  const settings = { users: [`${USER}:${PASSWORD}`], maxFailures: 3, failureWindowMs: 10_000, lockoutMs: 30_000 };
  const wrong = (a: Admin, remoteAddress = '10.0.0.1') =>
    a.app.inject({ url: '/change-log-level', headers: { authorization: basic(USER, 'guess') }, remoteAddress });
  const right = (a: Admin, remoteAddress = '10.0.0.1') => post(a.app, '{"level":"debug"}', {}, { remoteAddress });

  it('answers 429 with Retry-After once a client failed maxFailures times, even with the right password, until the lockout ends', async () => {
    const a = await adminApp(settings);
    for (let i = 0; i < 3; i++) assert.equal((await wrong(a)).statusCode, 401);
    let res = await right(a);
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['retry-after'], '30');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.json(), errorOf('Too many failed authentication attempts; retry after 30 seconds'));
    assert.equal(a.logger.level, 'info');
    assert.equal((await a.app.inject({ url: '/change-log-level', remoteAddress: '10.0.0.1' })).statusCode, 429);
    a.advance(29_500);
    res = await right(a);
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['retry-after'], '1');
    a.advance(500);
    assert.equal((await right(a)).statusCode, 200);
    assert.equal(a.logger.level, 'debug');
    const refusals = warnings(a, 'admin request refused');
    assert.equal(refusals.length, 3);
    assert.equal(refusals[0]!.clientAddress, '10.0.0.1');
    assert.equal(refusals[0]!.reason, 'client address locked out after repeated authentication failures');
    assert.deepEqual(
      warnings(a, 'admin authentication failed').map((l) => l.lockedOut),
      [false, false, true],
    );
  });

  it('cannot be outrun by parallel guesses while hashing is slow', async () => {
    const a = await adminApp({
      ...settings,
      users: [`${USER}:${await hashPassword(PASSWORD)}`],
      maxConcurrentVerifications: 10,
      maxVerificationsPerSecond: 100,
    });
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => wrong(a)))).map((r) => r.statusCode);
    assert.deepEqual(statuses.sort(), [401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    assert.equal((await right(a)).statusCode, 429);
  });

  it('locks out only the failing client address', async () => {
    const a = await adminApp(settings);
    for (let i = 0; i < 3; i++) await wrong(a, '10.0.0.1');
    assert.equal((await right(a, '10.0.0.1')).statusCode, 429);
    assert.equal((await right(a, '10.0.0.2')).statusCode, 200);
  });

  it('forgets the failures of a client after a success', async () => {
    const a = await adminApp(settings);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) assert.equal((await wrong(a)).statusCode, 401);
      assert.equal((await right(a)).statusCode, 200);
    }
  });

  it('counts failures within the window only, and locks out again after a lockout ends', async () => {
    const a = await adminApp(settings);
    for (let i = 0; i < 2; i++) await wrong(a);
    a.advance(10_000);
    for (let i = 0; i < 2; i++) assert.equal((await wrong(a)).statusCode, 401);
    assert.equal((await right(a)).statusCode, 200);
    for (let i = 0; i < 3; i++) await wrong(a);
    a.advance(30_000);
    for (let i = 0; i < 3; i++) assert.equal((await wrong(a)).statusCode, 401);
    assert.equal((await right(a)).statusCode, 429);
  });

  it('counts missing and malformed headers as failures too', async () => {
    const a = await adminApp(settings);
    await a.app.inject({ url: '/change-log-level', remoteAddress: '10.0.0.1' });
    await a.app.inject({ url: '/change-log-level', headers: { authorization: 'Bearer x' }, remoteAddress: '10.0.0.1' });
    await wrong(a);
    assert.equal((await right(a)).statusCode, 429);
  });

  it('never locks out with maxFailures, maxUserFailures and maxTotalFailures 0', async () => {
    const a = await adminApp({ ...settings, maxFailures: 0, maxUserFailures: 0, maxTotalFailures: 0 });
    for (let i = 0; i < 10; i++) assert.equal((await wrong(a)).statusCode, 401);
    assert.equal((await right(a)).statusCode, 200);
  });

  it('remembers at most maxTrackedClients addresses, forgetting the least recently failing', () => {
    let now = 0;
    const tracker = new FailureTracker(
      () => ({ maxFailures: 2, windowMs: 1000, lockoutMs: 5000, maxClients: 3 }),
      () => now,
    );
    for (let i = 0; i < 1000; i++) tracker.fail(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(tracker.size, 3);
    assert.equal(tracker.fail('a'), false);
    assert.equal(tracker.fail('a'), true);
    assert.equal(tracker.lockedFor('a'), 5000);
    for (const c of ['b', 'c']) tracker.fail(c);
    assert.equal(tracker.lockedFor('a'), 5000, 'still among the 3 most recent');
    tracker.fail('d');
    assert.equal(tracker.lockedFor('a'), 0, 'forgotten');
    assert.equal(tracker.size, 3);
    now = 10_000;
    assert.equal(tracker.lockedFor('b'), 0);
    assert.equal(tracker.size, 2, 'an expired window is dropped when looked at');
  });

  it('keeps a lockout in force when failures that began before it finish during it', () => {
    let now = 0;
    const tracker = new FailureTracker(
      () => ({ maxFailures: 2, windowMs: 1000, lockoutMs: 5000, maxClients: 10 }),
      () => now,
    );
    tracker.fail('x');
    assert.equal(tracker.fail('x'), true);
    now = 100;
    assert.equal(tracker.fail('x'), true);
    assert.equal(tracker.lockedFor('x'), 4900);
    now = 5000;
    assert.equal(tracker.lockedFor('x'), 0);
    assert.equal(tracker.fail('x'), false);
  });
  it('locks out a user name whatever the address it is tried from, and then every request past the total budget', async () => {
    const a = await adminApp({ ...settings, maxFailures: 3, maxUserFailures: 5, maxTotalFailures: 8 });
    for (let i = 0; i < 5; i++) assert.equal((await wrong(a, `127.1.0.${i}`)).statusCode, 401);
    const res = await right(a, '127.2.0.1');
    assert.equal(res.statusCode, 429, 'the user name is locked out, even with its password from a fresh address');
    assert.equal(res.headers['retry-after'], '30');
    assert.equal(warnings(a, 'admin request refused').at(-1)!.reason, 'user name locked out after repeated authentication failures');
    // other user names from other addresses: the total budget (8) is what is left
    const other = (i: number) =>
      a.app.inject({ url: '/change-log-level', headers: { authorization: basic(`guess${i}`, 'x') }, remoteAddress: `127.3.0.${i}` });
    for (let i = 0; i < 3; i++) assert.equal((await other(i)).statusCode, 401);
    assert.equal((await other(3)).statusCode, 429);
    assert.equal(warnings(a, 'admin request refused').at(-1)!.reason, 'admin listener locked out after repeated authentication failures');
    a.advance(30_000);
    assert.equal((await right(a, '127.2.0.1')).statusCode, 200, 'the lockouts end');
  });

  it('finds no password in 1,000 guesses from rotating loopback addresses', async () => {
    const a = await adminApp({ users: [`${USER}:${PASSWORD}`] });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      // the right password is among the guesses, late
      const password = i === 900 ? PASSWORD : `guess${i}`;
      const res = await a.app.inject({
        url: '/change-log-level',
        headers: { authorization: basic(i % 2 ? USER : `user${i}`, password) },
        remoteAddress: `127.1.${i >> 8}.${i & 255}`,
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    const config = defaultConfig().admin;
    assert.equal(statuses.get(200), undefined, JSON.stringify([...statuses]));
    assert.equal(statuses.get(401), config.maxTotalFailures, JSON.stringify([...statuses]));
    assert.equal(statuses.get(429), 1000 - config.maxTotalFailures);
  });

  it('bounds concurrent scrypt verifications, refusing the excess with 429 and Retry-After', async () => {
    const a = await adminApp({
      users: [`${USER}:${await hashPassword(PASSWORD)}`],
      maxConcurrentVerifications: 2,
      maxVerificationsPerSecond: 1000,
    });
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => wrong(a, `10.9.0.${i}`)));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [...Array(2).fill(401), ...Array(14).fill(429)]);
    const refused = results.find((r) => r.statusCode === 429)!;
    assert.equal(refused.headers['retry-after'], '1');
    assert.deepEqual(refused.json(), errorOf('Too many authentication attempts at once; retry after 1 second'));
    // the first ten one by one, the others summed up at the end of the interval
    assert.equal(warnings(a, 'admin request refused').filter((l) => l.reason === 'password verifications at their bound').length, 10);
    assert.equal((await right(a)).statusCode, 200, 'the refused attempts were not failures');
  });

  it('bounds scrypt verifications a second, with a burst of one second', async () => {
    const a = await adminApp({
      users: [`${USER}:${await hashPassword(PASSWORD)}`],
      maxConcurrentVerifications: 16,
      maxVerificationsPerSecond: 2,
      maxFailures: 100,
      maxUserFailures: 100,
      maxTotalFailures: 100,
    });
    const statuses = (await Promise.all(Array.from({ length: 16 }, (_, i) => wrong(a, `10.8.0.${i}`)))).map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [401, 401, ...Array(14).fill(429)]);
    assert.equal((await right(a)).statusCode, 429, 'no token left within the same second');
    a.advance(500);
    assert.equal((await right(a)).statusCode, 200, 'half a second brings one token back');
    assert.equal((await right(a)).statusCode, 429);
  });

  it('does not bound verifications of plain-text passwords (no scrypt involved)', async () => {
    const a = await adminApp({ users: [`${USER}:${PASSWORD}`], maxVerificationsPerSecond: 1 });
    for (let i = 0; i < 5; i++) assert.equal((await right(a)).statusCode, 200);
  });
  it('logs the first refusals of an interval one by one and sums up the rest in one line', async () => {
    const a = await adminApp(settings, 200);
    for (let i = 0; i < 3; i++) await wrong(a);
    for (let i = 0; i < 500; i++) assert.equal((await right(a)).statusCode, 429);
    assert.equal(warnings(a, 'admin request refused').length, 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const summaries = warnings(a, 'admin requests refused beyond those logged');
    assert.equal(summaries.length, 1);
    assert.deepEqual(
      {
        refused: summaries[0]!.refused,
        reasons: summaries[0]!.reasons,
        clientAddresses: summaries[0]!.clientAddresses,
        users: summaries[0]!.users,
      },
      { refused: 490, reasons: { 'client address locked out after repeated authentication failures': 490 }, clientAddresses: 1, users: 1 },
    );
    // at warn (Fastify's own request lines are at info)
    const warnBytes = a.raw.filter((l) => (JSON.parse(l) as LogLine).level >= 40).join('').length;
    assert.ok(warnBytes < 10_000, `${warnBytes} bytes logged at warn for 503 requests`);
    // a new interval logs its first refusals again
    assert.equal((await right(a)).statusCode, 429);
    assert.equal(warnings(a, 'admin request refused').length, 11);
  });
});
