import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { durationNs } from '../../src/referenceConfig.js';

const DAY_NS = 86_400_000_000_000n;

describe("the reference's configuration", () => {
  it('reads HIERO_MIRROR_REST_* and HIERO_MIRROR_COMMON_* variables, names matched case-insensitively', () => {
    const warnings: string[] = [];
    const config = loadConfig(
      {
        HIERO_MIRROR_REST_DB_HOST: 'db.internal',
        HIERO_MIRROR_REST_DB_PASSWORD: 'p@ss word',
        HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '25',
        HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: '5000',
        HIERO_MIRROR_REST_PORT: '6000',
        HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX: '50',
        HIERO_MIRROR_REST_RESPONSE_LIMIT_TOKENBALANCE_SINGLEACCOUNT: '500',
        HIERO_MIRROR_REST_QUERY_MAXREPEATEDQUERYPARAMETERS: '10',
        HIERO_MIRROR_REST_QUERY_MAXTRANSACTIONSTIMESTAMPRANGE: '7d',
        HIERO_MIRROR_REST_METRICS_CONFIG_AUTHENTICATION: 'true',
        HIERO_MIRROR_REST_METRICS_CONFIG_USERNAME: 'prom',
        HIERO_MIRROR_REST_METRICS_CONFIG_PASSWORD: 'pw',
        HIERO_MIRROR_COMMON_REALM: '2',
        HIERO_MIRROR_REST_CACHE_ENTITYID_MAXAGE: '1800',
        HIERO_MIRROR_REST_REDIS_SENTINEL_ENABLED: 'false',
      },
      undefined,
      (message) => warnings.push(message),
    );
    assert.equal(config.db.url, 'postgres://mirror_api:p%40ss%20word@db.internal:5432/mirror_node');
    assert.equal(config.db.poolSize, 25);
    assert.equal(config.db.statementTimeoutMs, 5000);
    assert.equal(config.port, 6000);
    assert.equal(config.response.limit.max, 50);
    assert.equal(config.response.limit.tokenBalance.singleAccount, 500);
    assert.equal(config.query.maxRepeatedQueryParameters, 10);
    assert.equal(config.query.maxTransactionsTimestampRangeNs, 7n * DAY_NS);
    assert.deepEqual(config.metrics.config, { authentication: true, username: 'prom', password: 'pw', uriPath: '/swagger' });
    assert.equal(config.realm, 2n);
    assert.deepEqual(warnings, [
      'ignoring settings of the reference that have no meaning in this service: HIERO_MIRROR_REST_CACHE_ENTITYID_MAXAGE, HIERO_MIRROR_REST_REDIS_SENTINEL_ENABLED',
    ]);
  });

  it('lets LQS_* variables, DATABASE_URL and PORT override them', () => {
    const config = loadConfig(
      {
        HIERO_MIRROR_REST_PORT: '6000',
        PORT: '7000',
        HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX: '50',
        LQS_RESPONSE_LIMIT_MAX: '60',
        HIERO_MIRROR_REST_DB_HOST: 'a',
        DATABASE_URL: 'postgres://u@b/db',
      },
      undefined,
      () => {},
    );
    assert.equal(config.port, 7000);
    assert.equal(config.response.limit.max, 60);
    assert.equal(config.db.url, 'postgres://u@b/db');
  });

  it('reads a hiero.mirror.rest YAML file, warning once about the keys it does not use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqs-ref-'));
    try {
      const file = join(dir, 'application.yml');
      writeFileSync(
        file,
        [
          'hiero:',
          '  mirror:',
          '    common:',
          '      shard: 1',
          '    rest:',
          '      db:',
          '        host: pg.example',
          '        port: 6432',
          '        name: mirror',
          '        username: reader',
          '        password: secret',
          '        pool:',
          '          connectionTimeout: 4000',
          '      response:',
          '        compression: false',
          '        limit:',
          '          default: 10',
          '        includeHostInLink: true',
          '      query:',
          '        bindTimestampRange: true',
          '        maxTransactionConsensusTimestampRange: 1h30m',
          '      network:',
          '        unreleasedSupplyAccounts: []',
          '      cache:',
          '        entityId:',
          '          maxAge: 60',
          '    importer:',
          '      enabled: false',
          '',
        ].join('\n'),
      );
      const warnings: string[] = [];
      const config = loadConfig({}, file, (message) => warnings.push(message));
      assert.equal(config.db.url, 'postgres://reader:secret@pg.example:6432/mirror');
      assert.equal(config.db.connectionTimeoutMs, 4000);
      assert.equal(config.shard, 1n);
      assert.equal(config.response.compression, false);
      assert.equal(config.response.limit.default, 10);
      assert.equal(config.response.includeHostInLink, true);
      assert.equal(config.query.bindTimestampRange, true);
      assert.equal(config.query.maxTransactionConsensusTimestampRangeNs, 90n * 60n * 1_000_000_000n);
      assert.deepEqual(warnings, [
        `ignoring settings of the reference that have no meaning in this service: hiero.mirror.importer.enabled (${file}), hiero.mirror.rest.network.unreleasedSupplyAccounts (${file}), hiero.mirror.rest.cache.entityId.maxAge (${file})`,
      ]);
      writeFileSync(file, 'hiero:\n  mirror:\n    rest:\n      response:\n        limit:\n          max: lots\n');
      assert.throws(() => loadConfig({}, file, () => {}), {
        message: `config file ${file}: hiero.mirror.rest.response.limit.max: "lots" is not a number`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads query.transactions.precedingTransactionTypes, where the reference puts it', () => {
    const fromEnv = loadConfig({ HIERO_MIRROR_REST_QUERY_TRANSACTIONS_PRECEDINGTRANSACTIONTYPES: '11,15,42' }, undefined, (m) =>
      assert.fail(m),
    );
    assert.deepEqual(fromEnv.query.precedingTransactionTypes, [11, 15, 42]);
    const dir = mkdtempSync(join(tmpdir(), 'lqs-ref-'));
    try {
      const file = join(dir, 'application.yml');
      writeFileSync(file, 'hiero:\n  mirror:\n    rest:\n      query:\n        transactions:\n          precedingTransactionTypes: [11]\n');
      assert.deepEqual(loadConfig({}, file, (m) => assert.fail(m)).query.precedingTransactionTypes, [11]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads chainId where the reference puts it, directly under hiero.mirror.rest', () => {
    assert.equal(loadConfig({ HIERO_MIRROR_REST_CHAINID: '0x12a' }, undefined, (m) => assert.fail(m)).network.chainId, '0x12a');
    const dir = mkdtempSync(join(tmpdir(), 'lqs-ref-'));
    try {
      const file = join(dir, 'application.yml');
      // `network` is the reference's network name (a plain value), which has no meaning here
      writeFileSync(file, 'hiero:\n  mirror:\n    rest:\n      chainId: "0x127"\n      network: MAINNET\n');
      const warnings: string[] = [];
      assert.equal(loadConfig({}, file, (m) => warnings.push(m)).network.chainId, '0x127');
      assert.deepEqual(warnings, [
        `ignoring settings of the reference that have no meaning in this service: hiero.mirror.rest.network (${file})`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the variable of a bad value', () => {
    assert.throws(() => loadConfig({ HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX: 'x' }, undefined, () => {}), {
      message: 'HIERO_MIRROR_REST_RESPONSE_LIMIT_MAX (response.limit.max): "x" is not a number',
    });
    assert.throws(() => loadConfig({ HIERO_MIRROR_REST_QUERY_MAXTRANSACTIONSTIMESTAMPRANGE: 'soon' }, undefined, () => {}), {
      message: 'HIERO_MIRROR_REST_QUERY_MAXTRANSACTIONSTIMESTAMPRANGE: "soon" is not a duration (such as 60d, 35m or 1h30m)',
    });
  });

  it('reads durations as the reference writes them', () => {
    assert.equal(durationNs('60d', 'x'), 60n * DAY_NS);
    assert.equal(durationNs('35m', 'x'), 35n * 60n * 1_000_000_000n);
    assert.equal(durationNs('1500ms', 'x'), 1_500_000_000n);
    assert.equal(durationNs(2000, 'x'), 2_000_000_000n);
    assert.throws(() => durationNs('5 weeks', 'x'));
  });
});
