/** `bench ingest` as a user runs it, at a tiny size: both backends ingest every file and the figures are printed and written. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTools } from '../support/toolsCommand.js';

const tools = (args: string[]) =>
  runTools(args, 120_000, process.env.LQS_TEST_ADMIN_URL ? { LQS_TEST_ADMIN_URL: process.env.LQS_TEST_ADMIN_URL } : {});

describe('tools bench ingest', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-bench-ingest-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests a tiny stream into PostgreSQL and PGlite and prints records/s, files/s, the core share and the split', async () => {
    const run = await tools(['bench', 'ingest', '--files', '3', '--records', '7', '--out', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Ingestion, 4 nodes × 3 files × 7 records \(/);
    assert.match(
      run.stdout,
      /\| records\/s \| files\/s \| share of one core \| PostgreSQL server \| reading \+ verification \| writing \| state appliers \(of writing\) \|/,
    );
    assert.match(run.stdout, /\| postgres \| 1 \| 3 \| 21 \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+ % \| \d+ % \| \d+ % \|/);
    assert.match(run.stdout, /\| pglite \| 1 \| 3 \| 21 \| \d+ \| [\d.]+ \| [\d.]+ \| - \| \d+ % \| \d+ % \| \d+ % \|/);
    const written = JSON.parse(readFileSync(join(dir, 'ingest-ci.json'), 'utf8')) as {
      runs: { files: number; records: number; readMs: number; writeMs: number; appliedMs: number }[];
    };
    // the ingester's timed hook reports both steps, and the appliers' part of the writing
    assert.ok(written.runs.every((r) => r.readMs > 0 && r.writeMs > 0 && r.appliedMs > 0 && r.appliedMs < r.writeMs));
    assert.deepEqual(
      written.runs.map((r) => [r.files, r.records]),
      [
        [3, 21],
        [3, 21],
      ],
    );
  });

  it('refuses a bad option with the usage', async () => {
    const run = await tools(['bench', 'ingest', '--backend', 'oracle']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^--backend: postgres, pglite or both, not oracle\n\nusage: npm run bench -- ingest/);
  });
});
