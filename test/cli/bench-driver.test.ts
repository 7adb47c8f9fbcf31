/** `bench driver` as a user calls it: its usage, and the refusals of a bad variant, statement or missing database. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTools } from '../support/toolsCommand.js';

const tools = (args: string[]) => runTools(args, 30_000);

describe('tools bench driver', () => {
  it('prints its usage with every client and statement', async () => {
    const run = await tools(['bench', 'driver', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^usage: bench driver /);
    for (const name of ['service', 'pg-objects', 'pg-arrays', 'postgres-js', 'account', 'contract-result']) {
      assert.ok(run.stdout.includes(name), name);
    }
  });

  it('refuses an unknown client or statement, and runs nowhere without a database', async () => {
    const variant = await tools(['bench', 'driver', '--url', 'postgres://127.0.0.1/x', '--variants', 'service,mysql']);
    assert.equal(variant.code, 2);
    assert.match(variant.stderr, /unknown variant "mysql"/);
    const statement = await tools(['bench', 'driver', '--url', 'postgres://127.0.0.1/x', '--statements', 'transfers']);
    assert.equal(statement.code, 2);
    assert.match(statement.stderr, /unknown statement "transfers"/);
    const nowhere = await tools(['bench', 'driver']);
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.stderr, /no database: --url or DATABASE_URL/);
  });
});
