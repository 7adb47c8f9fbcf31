/** The reference's configuration read where the reference reads it: CONFIG_PATH/CONFIG_NAME, HEDERA_MIRROR_*, and its default database. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';

const REFERENCE_DEFAULT_DB = 'postgres://mirror_api:mirror_api_pass@127.0.0.1:5432/mirror_node';

describe("the reference's configuration in the reference's places", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-config-path-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const load = (env: NodeJS.ProcessEnv) => {
    const warnings: string[] = [];
    const config = loadConfig(env, undefined, (message) => warnings.push(message));
    return { config, warnings };
  };

  it('reads application.yml, then application.yaml, in CONFIG_PATH', () => {
    const path = join(dir, 'both');
    mkdirSync(path);
    writeFileSync(
      join(path, 'application.yml'),
      'hiero:\n  mirror:\n    rest:\n      db:\n        host: db.internal\n      response:\n        limit:\n          max: 50\n',
    );
    writeFileSync(join(path, 'application.yaml'), 'hiero:\n  mirror:\n    rest:\n      response:\n        limit:\n          max: 60\n');
    const { config, warnings } = load({ CONFIG_PATH: path });
    assert.equal(config.db.url, 'postgres://mirror_api:mirror_api_pass@db.internal:5432/mirror_node');
    assert.equal(config.response.limit.max, 60);
    assert.deepEqual(warnings, []);
  });

  it("combines the database parts of the reference's files and variables into one URL", () => {
    const path = join(dir, 'parts');
    mkdirSync(path);
    writeFileSync(
      join(path, 'application.yml'),
      'hiero:\n  mirror:\n    rest:\n      db:\n        host: db.internal\n        name: ledger\n',
    );
    const { config } = load({ CONFIG_PATH: path, HIERO_MIRROR_REST_DB_PASSWORD: 's3cret', HIERO_MIRROR_REST_DB_PORT: '6432' });
    // the variables add the password and port: the file's host and name stay
    assert.equal(config.db.url, 'postgres://mirror_api:s3cret@db.internal:6432/ledger');
  });

  it('reads the file CONFIG_NAME names, and stops when CONFIG_PATH holds none', () => {
    const path = join(dir, 'named');
    mkdirSync(path);
    writeFileSync(join(path, 'rest.yaml'), 'hiero:\n  mirror:\n    rest:\n      db:\n        port: 6432\n');
    assert.equal(
      load({ CONFIG_PATH: path, CONFIG_NAME: 'rest' }).config.db.url,
      'postgres://mirror_api:mirror_api_pass@127.0.0.1:6432/mirror_node',
    );
    assert.throws(() => load({ CONFIG_PATH: path }), {
      message: `CONFIG_PATH ${path} has no application.yml or application.yaml: correct CONFIG_PATH or unset it`,
    });
  });

  it("reads a file's deprecated hedera prefix as hiero, with a warning", () => {
    const path = join(dir, 'hedera');
    mkdirSync(path);
    writeFileSync(join(path, 'application.yml'), 'hedera:\n  mirror:\n    rest:\n      db:\n        name: ledger\n');
    const { config, warnings } = load({ CONFIG_PATH: path });
    assert.equal(config.db.url, 'postgres://mirror_api:mirror_api_pass@127.0.0.1:5432/ledger');
    assert.deepEqual(warnings, [
      `config file ${join(path, 'application.yml')}: the 'hedera' prefix is deprecated, read as 'hiero': hedera.mirror.rest.db.name`,
    ]);
  });

  it('reads HEDERA_MIRROR_* variables like HIERO_MIRROR_* ones, with a deprecation warning; HIERO_ wins', () => {
    const { config, warnings } = load({
      HEDERA_MIRROR_REST_DB_HOST: 'old.internal',
      HEDERA_MIRROR_REST_RESPONSE_LIMIT_MAX: '40',
      HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX: '70',
      HEDERA_MIRROR_COMMON_REALM: '3',
    });
    assert.equal(config.db.url, 'postgres://mirror_api:mirror_api_pass@old.internal:5432/mirror_node');
    assert.equal(config.response.limit.max, 70);
    assert.equal(config.realm, 3n);
    assert.deepEqual(warnings, [
      'the HEDERA_MIRROR_ variables are deprecated, read as HIERO_MIRROR_: HEDERA_MIRROR_REST_DB_HOST, HEDERA_MIRROR_REST_RESPONSE_LIMIT_MAX, HEDERA_MIRROR_COMMON_REALM',
    ]);
  });

  it("takes the reference's default database, never the embedded one, when a reference configuration names none", () => {
    assert.equal(load({ HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX: '50' }).config.db.url, REFERENCE_DEFAULT_DB);
    assert.equal(load({ HIERO_MIRROR_REST_CACHE_ENTITYID_MAXAGE: '5' }).config.db.url, REFERENCE_DEFAULT_DB);
    assert.equal(load({ HIERO_MIRROR_REST_PORT: '6000', DATABASE_URL: 'postgres://u@h/d' }).config.db.url, 'postgres://u@h/d');
    assert.equal(load({}).config.db.url, '', 'no configuration at all: the embedded database');
  });
});
