import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, configWith, defaultConfig, loadConfig } from '../../src/config.js';
import { SETTING_LIST, settingAt } from '../../src/settings/settings.js';
import { README_PATH, withGeneratedTables } from '../../tools/readme/settingsTables.js';

const readme = readFileSync(README_PATH, 'utf8');

/** The first cells of the README's tables headed `| Setting |`, split into the names they list. */
function documentedSettings(): string[] {
  const names: string[] = [];
  let inTable = false;
  for (const line of readme.split('\n')) {
    if (line.startsWith('| Setting |')) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) {
      const first = line.split('|')[1]!;
      let group = '';
      for (const [, name] of first.matchAll(/`([^`]+)`/g)) {
        // `.username` after `metrics.config.authentication` is short for metrics.config.username
        const full = name!.startsWith('.') ? group + name!.slice(1) : name!;
        group = full.slice(0, full.lastIndexOf('.') + 1);
        names.push(full);
      }
    }
  }
  return names;
}

describe('the settings table', () => {
  it("matches the README's generated tables (rewrite them with `node dist/tools/main.js readme`)", () => {
    assert.equal(readme, withGeneratedTables(readme));
  });

  it('documents every setting in the README with its default, and documents none that does not exist', () => {
    const documented = documentedSettings();
    for (const { path } of SETTING_LIST) assert.ok(documented.includes(path), `${path} is not in the README`);
    for (const name of documented) {
      const exists = name.endsWith('.*') ? SETTING_LIST.some((s) => s.path.startsWith(name.slice(0, -1))) : settingAt(name);
      assert.ok(exists, `the README documents ${name}, which is not a setting`);
    }
  });

  it('names in the README only LQS_ variables that exist', () => {
    const others = new Set(['LQS_CONFIG_FILE', 'LQS_TEST_ADMIN_URL', 'LQS_TEST_BACKEND', 'LQS_TEST_OPTIONAL_INDEXES', 'LQS_TEST_SCHEMA']);
    const variables = new Set(SETTING_LIST.map((s) => s.env));
    for (const [name] of readme.matchAll(/LQS_[A-Z0-9_]+/g)) {
      if (name === 'LQS_') continue;
      assert.ok(variables.has(name) || others.has(name), `the README names ${name}, which no setting reads`);
    }
  });

  it('derives each variable from the path', () => {
    assert.equal(settingAt('response.limit.tokenBalance.singleAccount')?.env, 'LQS_RESPONSE_LIMIT_TOKENBALANCE_SINGLEACCOUNT');
    assert.equal(settingAt('query.transfers.walkLimit')?.env, 'LQS_QUERY_TRANSFERS_WALKLIMIT');
  });
});

describe('configuration', () => {
  it('is frozen all the way down once loaded', () => {
    const config = loadConfig({ LQS_ADMIN_USERS: 'a:b' }, undefined, () => {});
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.response.limit) && Object.isFrozen(config.admin.users));
    assert.throws(() => {
      (config.response.limit as { max: number }).max = 1;
    }, TypeError);
    assert.throws(() => (config.admin.users as string[]).push('c:d'), TypeError);
    assert.ok(Object.isFrozen(defaultConfig().db));
  });

  it('builds a new configuration with overrides, validated, leaving the base as it was', () => {
    const base = defaultConfig();
    const config = configWith({ response: { limit: { max: 10 } }, query: { transfers: { join: 'merge' } } }, base);
    assert.equal(config.response.limit.max, 10);
    assert.equal(config.response.limit.default, 25);
    assert.equal(base.response.limit.max, 100);
    assert.throws(() => configWith({ server: { workers: 300 } }), ConfigError);
  });

  it('refuses a value that is not one of the allowed ones, naming the variable', () => {
    assert.throws(() => loadConfig({ LQS_DEMO_LOAD: 'maybe' }, undefined, () => {}), {
      message: 'LQS_DEMO_LOAD (demo.load): "maybe" is not one of auto, true, false',
    });
    assert.throws(() => loadConfig({ LQS_QUERY_TRANSFERS_JOIN: 'hash' }, undefined, () => {}), {
      message: 'LQS_QUERY_TRANSFERS_JOIN (query.transfers.join): "hash" is not one of auto, merge, probe by account, probe by type',
    });
    assert.throws(() => loadConfig({ LQS_DB_PRIMARYREADS: 'blocks,nfts' }, undefined, () => {}), {
      message: 'LQS_DB_PRIMARYREADS (db.primaryReads): "nfts" is not one of blocks',
    });
  });
});
