/** Start-up on a mirror node database, and the command that adds the service's optional indexes to one. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Db } from '../../src/db/db.js';
import { addOptionalIndexes, findMissingOptionalIndexes, optionalIndexes, PAGES_SLOWED_WITHOUT } from '../../src/db/optionalIndexes.js';
import { openPostgres } from '../../src/db/postgres.js';
import { missingSchema } from '../../src/db/schemaRequirements.js';
import {
  createReaderRole,
  createScratchDatabase,
  DEFAULT_ADMIN_URL,
  loadMirrorSchema,
  MIRROR_SCHEMA_FILE,
  type ReaderRole,
  type ScratchDatabase,
} from '../../tools/db/scratch.js';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { PROJECT_ROOT } from '../../src/paths.js';
import { postgresServerSkipReason } from '../support/privatePostgres.js';

const adminUrl = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
const cli = join(PROJECT_ROOT, 'dist', 'src', 'main.js');
const run = promisify(execFile);

/** Runs the command line against `url`; resolves with its exit code and output. */
async function lqs(url: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: url, LQS_PORT: '0', LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn' };
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const skip = existsSync(MIRROR_SCHEMA_FILE) ? await postgresServerSkipReason(adminUrl) : `${MIRROR_SCHEMA_FILE} is absent`;

describe('a mirror node database', { skip }, () => {
  let scratch: ScratchDatabase;
  let reader: ReaderRole;
  let owner: Db;

  before(async () => {
    scratch = await createScratchDatabase(adminUrl, 'lqs_mirror');
    await loadMirrorSchema(scratch.url);
    reader = await createReaderRole(scratch, adminUrl);
    owner = await openPostgres({ url: scratch.url, poolSize: 2, statementTimeoutMs: 0, connectionTimeoutMs: 5000 });
  });

  after(async () => {
    await owner?.close();
    await scratch?.drop();
    await reader?.drop();
  });

  it('has every table and column the service reads, readable by a SELECT-only role', async () => {
    const readerDb = await openPostgres({ url: reader.url, poolSize: 1, statementTimeoutMs: 5000, connectionTimeoutMs: 5000 });
    try {
      assert.deepEqual(await missingSchema(readerDb), []);
    } finally {
      await readerDb.close();
    }
  });

  it("makes a SELECT-only role with the README's SQL recipe, one the service serves with", async () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const recipe = /```sql\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### On a mirror node database')))?.[1];
    assert.ok(recipe, 'the README has the SQL recipe');
    const role = `lqs_recipe_${randomBytes(4).toString('hex')}`;
    const ownerRole = decodeURIComponent(new URL(scratch.url).username) || 'postgres';
    const sql = recipe
      .replace(/\blqs_reader\b/g, role)
      .replace(/DATABASE mirror_node/g, `DATABASE ${scratch.name}`)
      .replace(/FOR ROLE mirror_node/g, `FOR ROLE ${ownerRole}`);
    await owner.exec(sql);
    const url = new URL(scratch.url);
    url.username = role;
    url.password = 'change me';
    try {
      const readerDb = await openPostgres({ url: url.toString(), poolSize: 1, statementTimeoutMs: 5000, connectionTimeoutMs: 5000 });
      try {
        // what serve checks at start-up
        assert.deepEqual(await missingSchema(readerDb), []);
        await owner.exec('create table lqs_recipe_later (id bigint)');
        assert.deepEqual(await readerDb.query('select count(*)::int as n from lqs_recipe_later'), [{ n: 0 }], 'default privileges');
        await assert.rejects(readerDb.query('insert into lqs_recipe_later values (1)'), /permission denied/);
      } finally {
        await readerDb.close();
      }
    } finally {
      await owner.exec(`drop table if exists lqs_recipe_later; drop owned by ${role}; drop role ${role}`);
    }
  });

  it('is never migrated: serve and migrate stop with one line saying what to run', async () => {
    for (const command of [['serve'], ['migrate']]) {
      const result = await lqs(scratch.url, ...command);
      assert.equal(result.code, 1, command.join(' '));
      assert.match(result.stderr, /^error: Not migrating the database: it is a mirror node database .*`serve --no-migrate`.*\n$/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
    const rows = await owner.query(`select to_regclass('lqs_migration') as t`);
    assert.equal(rows[0]!.t, null, 'nothing was created');
  });

  it('stops the service with the list of what is missing or unreadable', async () => {
    await owner.exec(`alter table record_file rename column logs_bloom to logs_bloom_renamed`);
    await owner.exec(`revoke select on nft from ${new URL(reader.url).username}`);
    try {
      const result = await lqs(reader.url, 'serve', '--no-migrate');
      assert.equal(result.code, 1);
      const role = new URL(reader.url).username;
      const grant = `GRANT USAGE ON SCHEMA public TO "${role}"; GRANT SELECT ON ALL TABLES IN SCHEMA public TO "${role}";`;
      assert.equal(
        result.stderr.trim().split('\n').at(-1),
        'error: The database lacks what the service reads (a mirror node database of another version?): ' +
          `column record_file.logs_bloom; and the role ${role} may not read nft (permission denied); as the owner of the mirror node database run \`${grant}\` or connect as the mirror node's own readonly or mirror_api role`,
      );
      await owner.exec(`alter table record_file rename column logs_bloom_renamed to logs_bloom`);
      // only the privilege missing: the GRANT to ask for, not "another version?"
      const unreadable = await lqs(reader.url, 'serve', '--no-migrate');
      assert.equal(unreadable.code, 1);
      assert.equal(
        unreadable.stderr.trim().split('\n').at(-1),
        `error: the role ${role} may not read nft (permission denied); as the owner of the mirror node database run \`${grant}\` or connect as the mirror node's own readonly or mirror_api role`,
      );
    } finally {
      await owner.exec(`alter table record_file rename column logs_bloom_renamed to logs_bloom`).catch(() => undefined);
      await owner.exec(`grant select on nft to ${new URL(reader.url).username}`);
    }
  });

  it('tells a role that may not add indexes to ask the owner to run `lqs indexes`, not to migrate', async () => {
    const result = await lqs(reader.url, 'indexes');
    assert.equal(result.code, 1, result.stdout);
    const role = new URL(reader.url).username;
    const line = result.stderr.trim().split('\n').at(-1)!;
    assert.match(
      line,
      new RegExp(
        `^error: the role ${role} may not add indexes \\(must be owner of (table|relation) \\w+\\): only the tables' owner may; ask the owner of the mirror node database .* to run \`lqs indexes\` with DATABASE_URL naming that role`,
      ),
    );
    assert.doesNotMatch(line, /`(lqs )?migrate`/);
  });

  it('says at start-up, in readiness and in a gauge which optional indexes are missing and which pages they slow', async () => {
    const env = { ...process.env, DATABASE_URL: reader.url, LQS_PORT: '0', LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, [cli, 'serve', '--no-migrate'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
          if (url) resolve(url);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const names = optionalIndexes().map((i) => i.name);
      const warnings = out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; missingOptionalIndexes?: string[] })
        .filter((line) => line.missingOptionalIndexes);
      assert.equal(warnings.length, 1, 'one warning line');
      assert.equal(warnings[0]!.level, 40);
      assert.deepEqual(warnings[0]!.missingOptionalIndexes, names);
      for (const name of names) assert.ok(warnings[0]!.msg.includes(`${name} (${PAGES_SLOWED_WITHOUT[name]})`), name);
      assert.match(warnings[0]!.msg, /`lqs indexes`/);

      const readiness = (await (await fetch(`${base}/health/readiness`)).json()) as { status: string; missingOptionalIndexes: unknown };
      assert.equal(readiness.status, 'UP');
      assert.deepEqual(
        readiness.missingOptionalIndexes,
        names.map((name) => ({ name, slows: PAGES_SLOWED_WITHOUT[name] })),
      );
      const scrape = await (await fetch(`${base}/swagger/metrics/`)).text();
      for (const name of names) assert.match(scrape, new RegExp(`^lqs_optional_index_missing\\{index="${name}"\\} 1$`, 'm'));
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('gets the optional indexes from `lqs indexes`, on partitioned tables too, and a second run changes nothing', async () => {
    assert.deepEqual(
      (await findMissingOptionalIndexes(owner)).map((i) => i.name),
      optionalIndexes().map((i) => i.name),
    );
    const first = await lqs(scratch.url, 'indexes');
    assert.equal(first.code, 0, first.stderr);
    const names = optionalIndexes().map((i) => i.name);
    assert.deepEqual(
      first.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 2)),
      names.map((n) => ['added', n]),
    );

    const valid = await owner.query<{ name: string; valid: boolean }>(
      `select c.relname::text as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = any($1)`,
      [names],
    );
    assert.deepEqual(valid.map((v) => v.name).sort(), [...names].sort());
    assert.ok(
      valid.every((v) => v.valid),
      'every index is valid',
    );
    const parts = await owner.query(`select 1 from pg_inherits where inhparent = to_regclass('token_balance__account_token_latest')`);
    const partitions = await owner.query(`select 1 from pg_inherits where inhparent = to_regclass('token_balance')`);
    assert.equal(parts.length, partitions.length, 'one index per partition, attached');

    const second = await addOptionalIndexes(owner);
    assert.ok(second.every((o) => o.outcome === 'present'));
    assert.deepEqual(await findMissingOptionalIndexes(owner), []);
  });

  it('rebuilds an index that an interrupted build left invalid', async () => {
    const [index] = optionalIndexes();
    // what a cancelled CREATE INDEX CONCURRENTLY leaves behind
    await owner.exec(`update pg_index set indisvalid = false where indexrelid = to_regclass('${index!.name}')`);
    const outcomes = await addOptionalIndexes(owner);
    assert.equal(outcomes.find((o) => o.name === index!.name)?.outcome, 'rebuilt');
    const rows = await owner.query<{ valid: boolean }>(`select indisvalid as valid from pg_index where indexrelid = to_regclass($1)`, [
      index!.name,
    ]);
    assert.equal(rows[0]!.valid, true);
  });
});
