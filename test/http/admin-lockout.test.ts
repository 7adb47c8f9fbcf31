/** The admin listener's lockout after repeated authentication failures, its bounds on password verifications, and its refusal logging. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/admin/credentials.js';
import { FailureTracker } from '../../src/admin/lockout.js';
import { defaultConfig } from '../../src/config.js';
import { type Admin, type LogLine, PASSWORD, USER, adminApp, basic, post, warnings } from '../support/adminApp.js';
import { errorOf } from '../support/harness.js';

describe('admin listener: lockout after repeated failures', () => {
  // every verification runs scrypt: a rate that lets these tests' attempts through
  const settings = {
    users: [`${USER}:${PASSWORD}`],
    maxFailures: 3,
    failureWindowMs: 10_000,
    lockoutMs: 30_000,
    maxVerificationsPerSecond: 1000,
  };
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

  it('answers a burst of failures the same for an unknown user, a plain-text password and a scrypt hash', async () => {
    const burst = async (user: string) => {
      const a = await adminApp({
        users: [`${USER}:${PASSWORD}`, `hashed:${await hashPassword(PASSWORD)}`],
        maxConcurrentVerifications: 16,
        maxVerificationsPerSecond: 2,
        maxFailures: 100,
        maxUserFailures: 100,
        maxTotalFailures: 100,
      });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          a.app.inject({ url: '/change-log-level', headers: { authorization: basic(user, 'guess') }, remoteAddress: `10.7.0.${i}` }),
        ),
      );
      return results.map((r) => r.statusCode).sort();
    };
    const expected = [401, 401, ...Array(6).fill(429)];
    assert.deepEqual(await burst('nobody'), expected, 'an unknown user');
    assert.deepEqual(await burst(USER), expected, 'a plain-text password');
    assert.deepEqual(await burst('hashed'), expected, 'a scrypt hash');
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
