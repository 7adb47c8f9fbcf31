/** The tools' `stream` command as a user runs it: what it writes and prints, and its one-line refusals. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transactionTypeOf } from '../../src/ingest/proto/transactionBody.js';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import { runTools } from '../support/toolsCommand.js';

const tools = (args: string[]) => runTools(args, 60_000);

describe('tools stream', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-stream-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--help prints its usage', async () => {
    const run = await tools(['stream', '--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: lqs-tools stream \[options\] <out>/);
    assert.match(run.stdout, /--records-per-file <n>/);
  });

  it('writes the files of every node and the address book, and says where', async () => {
    const out = join(dir, 'bucket');
    const run = await tools(['stream', '--nodes', '3', '--files', '2', '--records-per-file', '4', '--key-bits', '2048', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^2 record files \(8 transactions\) × 3 nodes in /);
    assert.match(run.stdout, /first file {5}2026-01-01T00_00_00\.\d{9}Z\.rcd\.gz \(block 1, previous hash [0-9a-f]{96}\)/);
    assert.deepEqual(readdirSync(out).sort(), ['addressbook.bin', 'recordstreams']);
    assert.deepEqual(readdirSync(join(out, 'recordstreams')).sort(), ['record0.0.3', 'record0.0.4', 'record0.0.5']);
    assert.equal(readdirSync(join(out, 'recordstreams', 'record0.0.4')).length, 4);
  });

  it('--ledger starts the stream with the creations of its ledger', async () => {
    const out = join(dir, 'ledger');
    const run = await tools(['stream', '--ledger', '--nodes', '1', '--files', '2', '--records-per-file', '30', '--key-bits', '2048', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^2 record files \(60 transactions\) × 1 nodes in /);
    const file = readdirSync(join(out, 'recordstreams', 'record0.0.3')).find((n) => n.endsWith('.rcd.gz'))!;
    const first = readRecordFile(file, readFileSync(join(out, 'recordstreams', 'record0.0.3', file)));
    // 20 topic creations (ConsensusCreateTopic 24), then the accounts' (CryptoCreate 11)
    assert.deepEqual(
      first.items.map((item) => transactionTypeOf(item.transactionBytes)),
      [...Array<number>(20).fill(24), ...Array<number>(10).fill(11)],
    );
  });

  it('refuses a folder that is not empty, a bad time, small keys and no files in one line', async () => {
    const cases: [string[], RegExp][] = [
      [['stream', join(dir, 'bucket')], /^error: .*bucket is not empty: give a new or empty folder$/],
      [['stream', '--start', 'yesterday', join(dir, 'b2')], /^error: --start yesterday: not an ISO 8601 time$/],
      [['stream', '--key-bits', '1024', join(dir, 'b3')], /^error: --key-bits 1024: at least 2048$/],
      [
        ['stream', '--files', '0', join(dir, 'b4')],
        /^error: option '--files <n>' argument '0' is invalid\. an integer from 1 to 999999999\.$/,
      ],
    ];
    for (const [args, expected] of cases) {
      const run = await tools(args);
      assert.notEqual(run.code, 0, args.join(' '));
      // a bad command line adds commander's '(add --help for usage)'
      const lines = run.stderr.split('\n').filter((l) => l !== '' && l !== '(add --help for usage)');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, expected);
    }
  });
});
