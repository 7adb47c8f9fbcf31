/**
 * The proof by round trip: a scenario played on the ledger model gives (a) a signed record stream
 * and (b) the rows the mirror node's importer writes for it, inserted directly into one empty
 * database (the expected one); the stream is ingested by the service's ingester into another. The
 * tables the service reads are compared row by row, and two apps, one on each database, answer a
 * sample of URLs, compared byte for byte.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest } from '../../src/ingest/ingester.js';
import { prepareIngestion } from '../../src/ingest/setup.js';
import { insertRows } from '../../src/ledgerSetup/insert.js';
import { playScenario, type SectionName, type SizeName } from '../stream/scenario/scenario.js';
import type { ScenarioLedger } from '../stream/scenario/ledger.js';
import { type WrittenScenario, writeScenarioStream } from '../stream/scenario/writeScenario.js';
import { type Backend, Harness } from '../testApp/harness.js';
import { accountUrls, type AnswerDifference, blockUrls, compareAnswers } from './answers.js';
import { compareTable, STATE_TABLES, type TableDifference, TRANSACTION_TABLES } from './compare.js';

/** `transactions`: the per-transaction tables and the blocks' answers; `state`: the state tables and the accounts' answers. */
export const COMPARE_GROUPS = ['all', 'transactions', 'state'] as const;
export type CompareGroup = (typeof COMPARE_GROUPS)[number];

export interface RoundTripOptions {
  sections: readonly SectionName[];
  size: SizeName;
  compare: CompareGroup;
  seed?: number;
  backend?: Backend;
  /** the name prefix of the two databases (postgres backend) */
  databasePrefix?: string;
  /**
   * Keep the two databases, named exactly `<prefix>_expected` and `<prefix>_ingested` (postgres
   * backend), for `bench pair` to measure; dropped all the same when the run fails before comparing.
   */
  keep?: boolean;
  /** called with both databases before they are dropped (tests) */
  inspect?: (expected: Harness, ingested: Harness) => Promise<void>;
}

export interface RoundTripReport {
  transactions: number;
  files: number;
  tables: TableDifference[];
  urls: number;
  answers: AnswerDifference[];
  /** differing rows plus differing answers */
  differences: number;
  /** those of the per-transaction tables and the blocks' answers */
  transactionDifferences: number;
  /** those of the state tables and the accounts' answers, by the section owning the entity (genesis accounts: `transfers`) */
  stateDifferences: Record<string, number>;
  /** with `keep`: the two databases' URLs */
  kept?: { expected: string; ingested: string };
}

const START_NANOS = 1_767_225_600_000_000_000n;
const NODES = 3;
const ACCOUNT_SAMPLE = 40;

/** The tables in insertion order (record_file first, as the ingester writes it). */
async function insertExpected(h: Harness, rows: Record<string, Record<string, unknown>[]>): Promise<void> {
  for (const [table, list] of Object.entries(rows)) await insertRows(h.db, table, list);
}

export async function runRoundTrip(options: RoundTripOptions): Promise<RoundTripReport> {
  const ledger = playScenario({
    sections: options.sections,
    size: options.size,
    seed: options.seed ?? 1,
    startNanos: START_NANOS,
    nodes: NODES,
    itemsPerFile: options.size === 'ci' ? 12 : 500,
  });
  const dir = await mkdtemp(join(tmpdir(), 'lqs-roundtrip-'));
  const backend = options.backend ?? 'pglite';
  let expected: Harness | null = null;
  let ingested: Harness | null = null;
  try {
    const written = await writeScenarioStream(join(dir, 'bucket'), ledger.recordFiles(), {
      nodes: NODES,
      keyBits: 2048,
      firstBlock: 100n,
    });
    ledger.assignIndexes(written.indexes);

    const prefix = options.databasePrefix ?? 'lqs_roundtrip';
    const open = (side: string) =>
      Harness.open(options.keep ? { backend, keptDatabase: `${prefix}_${side}` } : { backend, databasePrefix: `${prefix}_${side}` });
    // both at once: opening a database is most of a small run's time
    const [a, b] = await Promise.allSettled([open('expected'), open('ingested')]);
    if (a.status === 'fulfilled') expected = a.value;
    if (b.status === 'fulfilled') ingested = b.value;
    try {
      if (a.status === 'rejected') throw a.reason;
      if (b.status === 'rejected') throw b.reason;
      const report = await ingestAndCompare(options, ledger, written, join(dir, 'bucket'), a.value, b.value);
      return options.keep ? { ...report, kept: { expected: a.value.url!, ingested: b.value.url! } } : report;
    } catch (err) {
      // half-made databases are not kept
      await expected?.discard();
      await ingested?.discard();
      expected = ingested = null;
      throw err;
    }
  } finally {
    await expected?.close();
    await ingested?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Inserts the expected rows into one database, ingests the stream at `bucket` into the other, compares them. */
async function ingestAndCompare(
  options: RoundTripOptions,
  ledger: ScenarioLedger,
  written: WrittenScenario,
  bucket: string,
  expected: Harness,
  ingested: Harness,
): Promise<RoundTripReport> {
  const rows = { record_file: written.recordFiles, ...ledger.expectedRows() };
  await insertExpected(expected, rows);

  const config = ingested.config;
  const settings = { ...config.ingest, source: bucket, addressBook: written.addressBook, network: '', trust: '' };
  const prepared = await prepareIngestion(ingested.db, config, settings);
  try {
    await ingest(ingested.db, { ...prepared, once: true });
  } finally {
    await prepared.source.close();
  }

  const specs = [...(options.compare === 'state' ? [] : TRANSACTION_TABLES), ...(options.compare === 'transactions' ? [] : STATE_TABLES)];
  // an entity the stream never created (a genesis account) belongs to the transfers section
  const sectionOf = (id: bigint) => ledger.ownerOf(id) ?? 'transfers';
  const tables: TableDifference[] = [];
  for (const spec of specs) tables.push(await compareTable(expected.db, ingested.db, spec, sectionOf));
  const urls = [
    ...(options.compare === 'state' ? [] : blockUrls(written.recordFiles)),
    ...(options.compare === 'transactions' ? [] : accountUrls(rows.entity, rows.entity_history, ACCOUNT_SAMPLE, sectionOf)),
  ];
  const answers = await compareAnswers(expected.app, ingested.app, urls);
  await options.inspect?.(expected, ingested);
  const stateDifferences: Record<string, number> = {};
  const add = (section: string, n: number) => {
    stateDifferences[section] = (stateDifferences[section] ?? 0) + n;
  };
  for (const t of tables) for (const [section, n] of Object.entries(t.bySection)) add(section, n);
  for (const a of answers) if (a.section !== null) add(a.section, 1);
  const isTransactionTable = (t: TableDifference) => TRANSACTION_TABLES.some((spec) => spec.table === t.table);
  return {
    transactions: rows.transaction.length,
    files: written.recordFiles.length,
    tables,
    urls: urls.length,
    answers,
    differences: tables.reduce((sum, t) => sum + t.differing, 0) + answers.length,
    transactionDifferences:
      tables.filter(isTransactionTable).reduce((sum, t) => sum + t.differing, 0) + answers.filter((a) => a.section === null).length,
    stateDifferences,
  };
}

/** The report as the command prints it. */
export function formatReport(options: RoundTripOptions, report: RoundTripReport): string {
  const lines = [
    `round trip of ${options.sections.join(', ')} (${options.size}, compare ${options.compare}): ${report.transactions} transactions in ${report.files} record files`,
    `  ${'table'.padEnd(24)}${'expected'.padStart(10)}${'ingested'.padStart(10)}${'differing'.padStart(11)}`,
    ...report.tables.map(
      (t) =>
        `  ${t.table.padEnd(24)}${String(t.expectedRows).padStart(10)}${String(t.ingestedRows).padStart(10)}${String(t.differing).padStart(11)}`,
    ),
    `  answers: ${report.urls} URLs, ${report.answers.length} differing`,
  ];
  if (options.compare !== 'transactions') {
    const bySection = Object.entries(report.stateDifferences).filter(([, n]) => n > 0);
    const text = bySection.length === 0 ? 'none' : bySection.map(([section, n]) => `${section} ${n}`).join(', ');
    lines.push(`  state differences by section: ${text}`);
  }
  const examples = [...report.tables.flatMap((t) => t.examples), ...report.answers.slice(0, 10).map((a) => `GET ${a.url}: ${a.detail}`)];
  if (examples.length > 0) lines.push('first differences:', ...examples.map((e) => `  ${e}`));
  if (report.kept) lines.push(`kept: expected ${report.kept.expected}`, `kept: ingested ${report.kept.ingested}`);
  lines.push(report.differences === 0 ? 'no differences' : `${report.differences} differences`);
  return `${lines.join('\n')}\n`;
}
