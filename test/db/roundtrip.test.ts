/**
 * The proof by round trip (tools roundtrip) at CI size: the scenario written as a signed stream and
 * as the importer's rows, the stream ingested into an empty database, the tables and the answers
 * compared. Each case names the sections it plays and what it compares; the state tables join a
 * case once the state appliers of its sections are in (see the README's Ingestion section).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareTable, TRANSACTION_TABLES } from '../../tools/roundtrip/compare.js';
import { compareAnswers } from '../../tools/roundtrip/answers.js';
import { type CompareGroup, formatReport, type RoundTripOptions, runRoundTrip } from '../../tools/roundtrip/run.js';
import { SECTION_NAMES, type SectionName } from '../../tools/stream/scenario/scenario.js';
import { backend } from '../support/harness.js';

const CASES: { sections: readonly SectionName[]; compare: CompareGroup }[] = [{ sections: SECTION_NAMES, compare: 'transactions' }];

describe('round trip: scenario stream ingested vs the importer rows written directly', () => {
  for (const c of CASES) {
    it(`${c.sections.join(', ')}: no differing row or answer (${c.compare})`, async () => {
      const tampered: { table: number; answers: number; example: string } = { table: 0, answers: 0, example: '' };
      const options: RoundTripOptions = {
        ...c,
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
          tampered.answers = (await compareAnswers(expected.app, ingested.app, ['/api/v1/blocks', '/api/v1/blocks?order=asc'])).length;
        },
      };
      const report = await runRoundTrip(options);
      assert.equal(report.differences, 0, formatReport(options, report));
      const rows = Object.fromEntries(report.tables.map((t) => [t.table, t.expectedRows]));
      if (c.compare !== 'state') {
        // every kind of row the scenario writes is there to compare
        assert.ok(report.transactions >= 80, `${report.transactions} transactions`);
        assert.ok(report.files >= 6, `${report.files} files`);
        assert.equal(rows.record_file, report.files);
        assert.equal(rows.transaction, report.transactions);
        assert.ok((rows.crypto_transfer ?? 0) > report.transactions, 'fees and transfers');
        assert.ok((rows.token_transfer ?? 0) > 0, 'token transfers');
        assert.equal(rows.staking_reward_transfer, 1);
        assert.equal(rows.file_data, 1, 'the exchange rate file update');
        assert.ok(report.urls >= 5);
        assert.equal(tampered.table, 1);
        assert.match(
          tampered.example,
          /^transaction consensus_timestamp="\d+": memo expected "\\\\x[0-9a-f]*", ingested "\\\\x6368616e676564"$/,
        );
        assert.equal(tampered.answers, 2);
      }
    });
  }
});
