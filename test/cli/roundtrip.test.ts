/** The tools' `roundtrip` command as a user runs it: its report and exit code, and its one-line refusals. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTools } from '../support/toolsCommand.js';

const tools = (args: string[]) => runTools(args, 60_000);

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
});
