/** The admin listener's authentication: refusals and their logging, configured credentials, scrypt hashes, hash-password. */
import { scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { hashPasswordCommand } from '../../src/admin/cli.js';
import { Credentials, CredentialsError, hashPassword } from '../../src/admin/credentials.js';
import { PASSWORD, USER, adminApp, basic, post, warnings } from '../support/adminApp.js';
import { errorOf } from '../support/harness.js';

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

  it('does the same work for every failed login: one scrypt of the same length, whichever user and secret', async () => {
    const calls: { salt: Buffer; length: number }[] = [];
    const credentials = Credentials.parse(
      [
        { entry: `plain:${PASSWORD}`, source: 'test' },
        { entry: `hashed:${await hashPassword(PASSWORD)}`, source: 'test' },
      ],
      async (password, salt, length) => {
        calls.push({ salt, length });
        return scryptSync(password, salt, length, { N: 16, r: 1, p: 1 });
      },
    );
    const work = async (user: string, password: string) => {
      calls.length = 0;
      const ok = await credentials.verify(user, password);
      return { ok, derivations: calls.length, length: calls[0]?.length };
    };
    const failed = { ok: false, derivations: 1, length: 64 };
    assert.deepEqual(await work('nobody', 'guess'), failed, 'an unknown user');
    assert.deepEqual(await work('plain', 'guess'), failed, 'a wrong plain-text password');
    assert.deepEqual(await work('hashed', 'guess'), failed, 'a wrong password of a scrypt hash');
    assert.deepEqual(await work('plain', PASSWORD), { ...failed, ok: true }, 'a right plain-text password costs the same');
    assert.equal((await work('hashed', PASSWORD)).ok, false, 'the test derivation is not the real scrypt');
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
