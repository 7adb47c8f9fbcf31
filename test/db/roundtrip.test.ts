/**
 * The proof by round trip (tools roundtrip) at CI size: every section of the scenario written as a
 * signed stream and as the importer's rows, the stream ingested into an empty database, the tables
 * and the answers compared in one run. The per-transaction tables and the blocks' answers must
 * agree for every section; the state tables and the accounts' answers for the sections listed in
 * STATE_SECTIONS: every one (a section left out would have its differences printed, not asserted).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareAnswers } from '../../tools/roundtrip/answers.js';
import { compareTable, TRANSACTION_TABLES } from '../../tools/roundtrip/compare.js';
import { formatReport, type RoundTripOptions, runRoundTrip } from '../../tools/roundtrip/run.js';
import { SECTION_NAMES, type SectionName } from '../../tools/stream/scenario/scenario.js';
import { backend, ingestionSkipReason } from '../support/harness.js';

/** the sections whose state tables and account answers must agree */
const STATE_SECTIONS: readonly SectionName[] = SECTION_NAMES;

describe('round trip: the scenario stream ingested vs the importer rows written directly', { skip: ingestionSkipReason }, () => {
  it('no differing row or answer in the transaction tables, nor in the state of any section', async () => {
    const tampered = { table: 0, answers: 0, example: '' };
    const options: RoundTripOptions = {
      sections: SECTION_NAMES,
      compare: 'all',
      size: 'ci',
      backend,
      // the comparison itself: one changed column and one changed block, each found
      inspect: async (expected, ingested) => {
        const [first] = await ingested.db.query<{ consensus_timestamp: bigint }>(
          'select consensus_timestamp from transaction order by consensus_timestamp limit 1',
        );
        await ingested.db.query("update transaction set memo = '\\x6368616e676564' where consensus_timestamp = $1", [
          first!.consensus_timestamp,
        ]);
        const spec = TRANSACTION_TABLES.find((t) => t.table === 'transaction')!;
        const diff = await compareTable(expected.db, ingested.db, spec);
        tampered.table = diff.differing;
        tampered.example = diff.examples[0] ?? '';
        await ingested.db.query('update record_file set count = count + 1 where index = (select max(index) from record_file)');
        const blocks = [
          { url: '/api/v1/blocks', section: null },
          { url: '/api/v1/blocks?order=asc', section: null },
        ];
        tampered.answers = (await compareAnswers(expected.app, ingested.app, blocks)).length;
      },
    };
    const report = await runRoundTrip(options);
    const printed = formatReport(options, report);
    assert.equal(report.transactionDifferences, 0, printed);
    for (const section of STATE_SECTIONS) assert.equal(report.stateDifferences[section] ?? 0, 0, `${section}\n${printed}`);

    // every kind of row the scenario writes is there to compare
    const rows = Object.fromEntries(report.tables.map((t) => [t.table, t.expectedRows]));
    assert.ok(report.transactions >= 80, `${report.transactions} transactions`);
    assert.ok(report.files >= 6, `${report.files} files`);
    assert.equal(rows.record_file, report.files);
    assert.equal(rows.transaction, report.transactions);
    assert.ok((rows.crypto_transfer ?? 0) > report.transactions, 'fees and transfers');
    assert.ok((rows.token_transfer ?? 0) > 0, 'token transfers');
    assert.equal(rows.staking_reward_transfer, 1);
    assert.equal(rows.file_data, 1, 'the exchange rate file update');
    for (const table of ['entity', 'entity_history', 'token', 'token_account', 'nft']) assert.ok((rows[table] ?? 0) > 0, table);
    assert.ok(report.urls >= 40, `${report.urls} URLs`);
    assert.equal(tampered.table, 1);
    assert.match(
      tampered.example,
      /^transaction consensus_timestamp="\d+": memo expected "\\\\x[0-9a-f]*", ingested "\\\\x6368616e676564"$/,
    );
    assert.equal(tampered.answers, 2);
  });
});
