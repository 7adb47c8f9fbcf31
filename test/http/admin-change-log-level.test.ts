/** The admin listener's POST /change-log-level: level changes, their logging, and refused bodies. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_BODY_LIMIT } from '../../src/admin/app.js';
import { AUTH, PASSWORD, USER, adminApp, currentLevel, post, warnings } from '../support/adminApp.js';
import { errorOf } from '../support/harness.js';

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
