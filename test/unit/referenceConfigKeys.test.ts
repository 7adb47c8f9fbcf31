/** The reference's keys beyond the simple one-to-one ones: TLS, the primary host, the Redis cache, headers, log sampling. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configWith, loadConfig, loadConfigWithOrigins } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { postgresTls } from '../../src/db/tls.js';

const dir = mkdtempSync(join(tmpdir(), 'lqs-refkeys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const quiet = (env: NodeJS.ProcessEnv, config?: string) => loadConfig(env, config, (m) => assert.fail(`unexpected warning: ${m}`));

describe("the reference's TLS, primary host, Redis, headers and sampling keys", () => {
  it('reads db.sslMode (its enum names) and db.tls.*, and makes the ssl option of every connection', () => {
    const ca = file('ca.pem', 'CA PEM');
    const cert = file('client.pem', 'CERT PEM');
    const key = file('client.key', 'KEY PEM');
    const config = quiet({
      HIERO_MIRROR_REST_DB_SSLMODE: 'VERIFY_CA',
      HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true',
      HIERO_MIRROR_REST_DB_TLS_CA: ca,
      HIERO_MIRROR_REST_DB_TLS_CERT: cert,
      HIERO_MIRROR_REST_DB_TLS_KEY: key,
    });
    assert.equal(config.db.sslMode, 'verify-ca');
    assert.deepEqual(config.db.tls, { enabled: true, ca, cert, key });
    const ssl = postgresTls(config.db)!;
    assert.equal(ssl.rejectUnauthorized, true);
    assert.deepEqual([ssl.ca, ssl.cert, ssl.key], ['CA PEM', 'CERT PEM', 'KEY PEM']);
    assert.equal(ssl.checkServerIdentity?.('host', {} as never), undefined, 'verify-ca: the host name is not checked');

    // as the reference: TLS enabled encrypts without checking the certificate
    const enabled = postgresTls(quiet({ HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true' }).db)!;
    assert.equal(enabled.rejectUnauthorized, false);
    const full = postgresTls(quiet({ LQS_DB_SSLMODE: 'verify-full', LQS_DB_TLS_CA: ca }).db)!;
    assert.equal(full.rejectUnauthorized, true);
    assert.equal(full.checkServerIdentity, undefined, 'verify-full: node checks the host name');
    assert.equal(postgresTls(quiet({ HIERO_MIRROR_REST_DB_SSLMODE: 'DISABLE' }).db), undefined);
    assert.equal(postgresTls(quiet({ HIERO_MIRROR_REST_DB_SSLMODE: 'PREFER' }).db), undefined);

    assert.throws(() => postgresTls(quiet({ LQS_DB_SSLMODE: 'verify-full' }).db), { message: /db\.tls\.ca, which is not set/ });
    assert.throws(() => postgresTls(quiet({ LQS_DB_TLS_ENABLED: 'true', LQS_DB_TLS_CA: join(dir, 'none.pem') }).db), {
      message: `db.tls.ca: the file ${join(dir, 'none.pem')} does not exist`,
    });
    assert.throws(() => quiet({ HIERO_MIRROR_REST_DB_SSLMODE: 'SOMETIMES' }), {
      message:
        /HIERO_MIRROR_REST_DB_SSLMODE \(db\.sslMode\): "sometimes" is not one of disable, allow, prefer, require, verify-ca, verify-full/,
    });
  });

  it('reads no TLS setting for the embedded database, which has no connection to encrypt', async () => {
    const db = await openDatabase(configWith({ db: { dataDir: 'memory', migrate: false, sslMode: 'verify-full' } }));
    await db.close();
  });

  it('reads db.primaryHost as the writable primary, db.host becoming its replica', () => {
    const path = file(
      'primary.yml',
      'hiero:\n  mirror:\n    rest:\n      db:\n        host: replicas.internal\n        primaryHost: primary.internal\n        password: pw\n',
    );
    const config = quiet({}, path);
    assert.equal(config.db.url, 'postgres://mirror_api:pw@primary.internal:5432/mirror_node');
    assert.deepEqual(config.db.replicas, ['postgres://mirror_api:pw@replicas.internal:5432/mirror_node']);
    // an empty primaryHost (the reference's default), or the same host: one database
    const same = quiet({ HIERO_MIRROR_REST_DB_HOST: 'a', HIERO_MIRROR_REST_DB_PRIMARYHOST: '' });
    assert.deepEqual([same.db.url, same.db.replicas], ['postgres://mirror_api:mirror_api_pass@a:5432/mirror_node', []]);
    // a variable changes one part and keeps the file's others
    const layered = quiet({ HIERO_MIRROR_REST_DB_PRIMARYHOST: 'other.internal' }, path);
    assert.equal(layered.db.url, 'postgres://mirror_api:pw@other.internal:5432/mirror_node');
    // a later file emptying it: one database again
    const empty = file('no-primary.yml', 'hiero:\n  mirror:\n    rest:\n      db:\n        primaryHost: ""\n');
    const emptied = quiet({ CONFIG_PATH: dir, CONFIG_NAME: 'primary' }, empty);
    assert.deepEqual([emptied.db.url, emptied.db.replicas], ['postgres://mirror_api:pw@replicas.internal:5432/mirror_node', []]);
  });

  it('reads redis.uri as the shared response cache when cache.response.enabled, as the reference does', () => {
    const on = quiet({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true', HIERO_MIRROR_REST_REDIS_URI: 'redis://cache:6380/2' });
    assert.equal(on.cache.redis.url, 'redis://cache:6380/2');
    assert.equal(quiet({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true' }).cache.redis.url, 'redis://127.0.0.1:6379');
    assert.equal(quiet({ HIERO_MIRROR_REST_REDIS_URI: 'redis://cache:6380' }).cache.redis.url, '', 'response cache off: no Redis');
    const path = file(
      'redis.yml',
      'hiero:\n  mirror:\n    rest:\n      cache:\n        response:\n          enabled: true\n      redis:\n        enabled: false\n',
    );
    assert.equal(quiet({}, path).cache.redis.url, '', 'redis.enabled false: no Redis');
    const timed = quiet({ HIERO_MIRROR_REST_REDIS_CONNECTTIMEOUT: '2000', HIERO_MIRROR_REST_REDIS_COMMANDTIMEOUT: '80' });
    assert.deepEqual([timed.cache.redis.connectTimeoutMs, timed.cache.redis.timeoutMs], [2000, 80]);
  });

  it('reads response.headers from a file as the reference writes them, merging its layers', () => {
    const path = file(
      'headers.yml',
      [
        'hiero:',
        '  mirror:',
        '    rest:',
        '      response:',
        '        headers:',
        '          default: { "x-served-by": "mirror", "Strict-Transport-Security": "max-age=300" }',
        '          path:',
        '            /api/v1/blocks/:hashOrNumber: { "cache-control": "public, max-age=900" }',
        '',
      ].join('\n'),
    );
    const config = quiet({ HIERO_MIRROR_REST_RESPONSE_HEADERS_DEFAULT: '{"x-served-by":"lqs"}' }, path);
    assert.deepEqual(config.response.headers.default, { 'x-served-by': 'lqs', 'strict-transport-security': 'max-age=300' });
    assert.deepEqual(config.response.headers.path, { '/api/v1/blocks/:hashOrNumber': { 'cache-control': 'public, max-age=900' } });
    assert.throws(() => quiet({ LQS_RESPONSE_HEADERS_DEFAULT: '["x"]' }), {
      message: /LQS_RESPONSE_HEADERS_DEFAULT.*is not an object of header names/,
    });
  });

  it("reads response.keepAliveTimeout as the listener's keep-alive timeout", () => {
    assert.equal(quiet({ HIERO_MIRROR_REST_RESPONSE_KEEPALIVETIMEOUT: '620000' }).server.keepAliveTimeoutMs, 620_000);
  });

  it('reads log.sampleRate as the share of successful requests logged', () => {
    assert.equal(quiet({ HIERO_MIRROR_REST_LOG_SAMPLERATE: '0.1' }).log.sampleRate, 0.1);
    assert.throws(() => quiet({ HIERO_MIRROR_REST_LOG_SAMPLERATE: '2' }), { message: /2 is not a share from 0 to 1/ });
  });

  it('warns once, in one line, of every key without a meaning here, from files and variables alike', () => {
    const path = file(
      'unused.yml',
      'hiero:\n  mirror:\n    rest:\n      openapi:\n        validation:\n          enabled: true\n      port: 5551\n',
    );
    const warnings: string[] = [];
    loadConfig(
      {
        CONFIG_PATH: dir,
        CONFIG_NAME: 'unused',
        HIERO_MIRROR_REST_STATEPROOF_ENABLED: 'true',
        HIERO_MIRROR_REST_REDIS_SENTINEL_ENABLED: 'true',
      },
      undefined,
      (m) => warnings.push(m),
    );
    assert.deepEqual(warnings, [
      `ignoring settings of the reference that have no meaning in this service: hiero.mirror.rest.openapi.validation.enabled (${path}), HIERO_MIRROR_REST_STATEPROOF_ENABLED, HIERO_MIRROR_REST_REDIS_SENTINEL_ENABLED`,
    ]);
  });

  it('knows where each setting came from', () => {
    const path = file('origins.yml', 'hiero:\n  mirror:\n    rest:\n      db:\n        host: pg.internal\n      port: 6000\n');
    const { origins } = loadConfigWithOrigins(
      { CONFIG_PATH: dir, CONFIG_NAME: 'origins', LQS_RESPONSE_LIMIT_MAX: '50' },
      undefined,
      () => {},
    );
    assert.equal(origins.get('db.url'), `hiero.mirror.rest.db.host in ${path}`);
    assert.equal(origins.get('port'), `hiero.mirror.rest.port in ${path}`);
    assert.equal(origins.get('response.limit.max'), 'LQS_RESPONSE_LIMIT_MAX (response.limit.max)');
    assert.equal(origins.get('response.limit.default'), undefined, 'a default has no origin');
  });
});
