/**
 * The tools' `roundtrip` command as a user runs it: its report and exit code, and its one-line
 * refusals; with `--keep`, the two databases it leaves, measured by `bench pair`.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_ADMIN_URL, dropDatabase } from '../../tools/db/scratch.js';
import { runTools } from '../support/toolsCommand.js';

const ADMIN_URL = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
const ADMIN_ENV = process.env.LQS_TEST_ADMIN_URL ? { LQS_TEST_ADMIN_URL: process.env.LQS_TEST_ADMIN_URL } : {};
const tools = (args: string[]) => runTools(args, 60_000, ADMIN_ENV);

describe('tools roundtrip', () => {
  it('--help prints its usage', async () => {
    const run = await tools(['roundtrip', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: lqs-tools roundtrip \[options\]/);
    for (const option of ['--size <size>', '--sections <list>', '--compare <group>', '--seed <n>', '--backend <backend>'])
      assert.ok(run.stdout.includes(option), option);
  });

  it('prints the rows and answers compared per table and exits 0 without differences', async () => {
    const run = await tools(['roundtrip', '--sections', 'transfers', '--compare', 'transactions']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^round trip of transfers \(ci, compare transactions\): \d+ transactions in \d+ record files$/);
    assert.match(run.stdout, /\n {2}transaction {13}\s+(\d+)\s+\1\s+0\n/);
    assert.match(run.stdout, /\n {2}answers: \d+ URLs, 0 differing\n/);
    assert.equal(lines.at(-1), 'no differences');
  });

  it('refuses an unknown section in one line', async () => {
    const run = await tools(['roundtrip', '--sections', 'crypto,airdrops']);
    assert.notEqual(run.code, 0);
    const lines = run.stderr.split('\n').filter((l) => l !== '' && l !== '(add --help for usage)');
    assert.deepEqual(lines, [
      `error: option '--sections <list>' argument 'crypto,airdrops' is invalid. sections are transfers, crypto, hollow, tokens, nfts; not "airdrops".`,
    ]);
  });

  it('refuses --keep with PGlite in one line', async () => {
    const run = await tools(['roundtrip', '--keep']);
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trim(), 'error: --keep needs --backend postgres: a PGlite database lives in the process and ends with it');
  });

  describe('--keep on PostgreSQL', () => {
    const prefix = `h_ingbench_keep_${process.pid}`;
    const out = mkdtempSync(join(tmpdir(), 'lqs-bench-pair-'));
    after(async () => {
      for (const side of ['expected', 'ingested']) await dropDatabase(ADMIN_URL, `${prefix}_${side}`);
      rmSync(out, { recursive: true, force: true });
    });

    it('keeps both databases under the prefix, and `bench pair` measures the API on them', async () => {
      const run = await tools(['roundtrip', '--backend', 'postgres', '--keep', '--prefix', prefix]);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const transactions = Number(/: (\d+) transactions in/.exec(run.stdout)![1]);
      const urls: string[] = [];
      for (const side of ['expected', 'ingested']) {
        const [, url] = new RegExp(`\nkept: ${side} (\\S+)\n`).exec(run.stdout) ?? [];
        assert.equal(new URL(url!).pathname, `/${prefix}_${side}`, run.stdout);
        urls.push(url!);
        // the run is over: the database is still there and holds the ledger
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const { rows } = await client.query<{ n: string }>('select count(*) as n from transaction').finally(() => client.end());
        assert.equal(Number(rows[0]!.n), transactions);
      }

      // the kept names are refused, not replaced, by a second run
      const again = await tools(['roundtrip', '--backend', 'postgres', '--keep', '--prefix', prefix, '--sections', 'transfers']);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`database ${prefix}_(expected|ingested) already exists`));

      const pair = await runTools(
        [
          'bench',
          'pair',
          '--a',
          urls[0]!,
          '--b',
          urls[1]!,
          '--rounds',
          '1',
          '--duration',
          '1',
          '--warm-up',
          '0',
          '--concurrency',
          '2',
          '--accounts',
          '6',
          '--blocks',
          '3',
          '--out',
          out,
        ],
        120_000,
        ADMIN_ENV,
      );
      assert.equal(pair.code, 0, pair.stderr);
      assert.match(pair.stdout, new RegExp(`^# bench pair: A ${prefix}_expected, B ${prefix}_ingested\n`));
      assert.match(pair.stdout, /\nURL mix: \d+ URLs drawn from A \(.*\); 0 answered with another status by B\.\n/);
      assert.match(pair.stdout, /\nTables: A \S+: (analysed|NOT all analysed) before, .*\(autovacuum (on|off)\)/);
      for (const metric of ['req/s', 'p50 ms', 'p99 ms', 'service CPU µs/req', 'PostgreSQL CPU µs/req'])
        assert.match(pair.stdout, new RegExp(`\n\\| 2 \\| ${metric.replace('/', '\\/')} \\| [\\d,.]+ \\| \\d\\.\\d{3} \\|`), metric);
      assert.match(pair.stdout, /\nResponses: 200 \d+(, 404 \d+)?; unexpected statuses 0, 5xx 0, socket errors 0\.\n/);
    });
  });
});
