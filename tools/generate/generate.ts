/**
 * `generate`: writes a synthetic ledger into a database. The load is safe to interrupt: the
 * `lqs_dataset` marker says `loading` until the last step (indexes rebuilt, tables analysed) is
 * done, and a later run cleans up what an interrupted one left behind.
 */
import type { ShardRealm } from '../../src/domain/entityId.js';
import { fromHex } from '../../src/domain/bytes.js';
import { resetDatabase } from '../fixtures/reset.js';
import {
  captureIndexes,
  dropIndexes,
  ensureMarkerTable,
  GENERATOR_VERSION,
  markComplete,
  markLoading,
  readMarker,
  restoreIndexes,
  type DatasetSummary,
  type IndexDefinition,
} from './dataset.js';
import { topNftOwners, writeFinalState, writeSystemFiles } from './final.js';
import { silentProgress, type Progress } from './progress.js';
import { scaleOf, type Scale, type ScaleName } from './scales.js';
import type { RowSink } from './sink.js';
import { LedgerStream } from './stream.js';
import { fitSchema } from './schema.js';
import { createWriters, flushAll, flushFull, GENERATED_TABLES, rowCounts, totalRows, type TableLayouts } from './tables.js';
import type { GenerateTarget } from './target.js';
import { nsText } from './time.js';
import { HUBS } from './layout.js';
import { World } from './world.js';

export interface LedgerParams {
  scale: Scale;
  seed: number;
  system: ShardRealm;
  /** the network's chain id as hex (`0x128`), stored in Ethereum transactions */
  chainId: string;
  /** the columns the database at hand has (default: all of `TABLES`) */
  layouts?: TableLayouts;
}

export interface LedgerOutcome {
  rows: Record<string, number>;
  totalRows: number;
  summary: Omit<DatasetSummary, 'load'>;
}

/** Generates the whole ledger into `sink` (no database work besides the rows themselves). */
export async function writeLedger(
  sink: RowSink,
  params: LedgerParams,
  chunkSize: number,
  onBlock: (block: number, rows: number) => void = () => undefined,
): Promise<LedgerOutcome> {
  const world = new World(params.seed, params.scale, params.system);
  const out = createWriters(sink, params.layouts);
  const flush = () => flushFull(out, chunkSize);
  writeSystemFiles(world, out);
  const stream = new LedgerStream(world, out, fromHex(params.chainId) ?? Buffer.from([1, 0x28]), flush);
  await stream.run(async (block) => {
    await flush();
    onBlock(block, totalRows(out));
  });
  await writeFinalState(world, out, stream.lastTimestamp, flush);
  await flushAll(out);
  await sink.finish();
  const rows = rowCounts(out);
  const { layout } = world;
  return {
    rows,
    totalRows: totalRows(out),
    summary: {
      scale: params.scale.name,
      seed: params.seed,
      generatorVersion: GENERATOR_VERSION,
      shard: String(params.system.shard),
      realm: String(params.system.realm),
      windowStart: nsText(stream.firstTimestamp),
      windowEnd: nsText(stream.lastTimestamp),
      blocks: params.scale.blocks,
      rows,
      totalRows: totalRows(out),
      transactions: { topLevel: stream.counts.topLevelTransactions, children: stream.counts.childTransactions },
      contractResults: stream.counts.contractResults,
      snapshots: { total: stream.counts.snapshots, full: stream.counts.fullSnapshots },
      layout: {
        firstAccount: 1001,
        accounts: world.existingAccounts,
        firstContract: layout.firstContract,
        contracts: world.existingContracts,
        firstToken: layout.firstToken,
        fungibleTokens: layout.fungibleTokens,
        nftCollections: layout.nftCollections,
      },
      hubs: { ...HUBS },
      topNftOwners: topNftOwners(world, 10),
    },
  };
}

export class GenerateRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenerateRefused';
  }
}

export interface GenerateOptions {
  scale: ScaleName;
  seed: number;
  /** regenerate even a complete dataset of the same parameters; replace data the generator did not write */
  force?: boolean;
  /** replace a generated dataset of other parameters without asking (databases dedicated to generated data) */
  replaceOther?: boolean;
  system?: ShardRealm;
  chainId?: string;
  progress?: Progress;
}

export interface GenerateResult {
  /** a complete dataset of the same scale and seed was already there */
  skipped: boolean;
  /** an interrupted earlier load was cleaned up first */
  cleanedIncomplete: boolean;
  summary: DatasetSummary;
}

function mergeDefinitions(present: IndexDefinition[], saved: readonly IndexDefinition[]): IndexDefinition[] {
  const names = new Set(present.map((d) => `${d.table}.${d.name}`));
  return [...present, ...saved.filter((d) => !names.has(`${d.table}.${d.name}`))];
}

async function holdsData(target: GenerateTarget): Promise<boolean> {
  const rows = await target.db.query<{ data: boolean }>(
    `select exists (select 1 from entity) or exists (select 1 from transaction) or exists (select 1 from record_file) as data`,
  );
  return rows[0]?.data === true;
}

export async function generateDataset(target: GenerateTarget, options: GenerateOptions): Promise<GenerateResult> {
  const progress = options.progress ?? silentProgress;
  const scale = scaleOf(options.scale);
  const { db } = target;
  await ensureMarkerTable(db);
  const marker = await readMarker(db);
  const same =
    marker !== null && marker.scale === scale.name && marker.seed === options.seed && marker.generatorVersion === GENERATOR_VERSION;
  if (marker?.status === 'complete' && marker.summary && same && !options.force) {
    progress.log(`the database already holds the complete ${scale.name} dataset of seed ${options.seed}`);
    return { skipped: true, cleanedIncomplete: false, summary: marker.summary };
  }
  if (marker?.status === 'complete' && !same && !options.force && !options.replaceOther) {
    throw new GenerateRefused(`the database holds the ${marker.scale} dataset of seed ${marker.seed}; use --force to replace it`);
  }
  if (!marker && !options.force && (await holdsData(target))) {
    throw new GenerateRefused('the database holds data the generator did not write; use --force to replace it');
  }

  // the columns of the database at hand (the project's schema or a mirror node's), before anything is touched
  const fit = await fitSchema(db);
  if (fit.skipped.length > 0) progress.log(`not in this database's schema, not written: ${fit.skipped.join(', ')}`);

  const cleanedIncomplete = marker?.status === 'loading';
  if (cleanedIncomplete) progress.log(`cleaning up an incomplete load (${marker!.scale}, started ${marker!.startedAt.toISOString()})`);
  // the marker says `loading` before anything is touched; an interrupted load may have dropped
  // indexes already, so its saved definitions count too
  const indexes = mergeDefinitions(await captureIndexes(db, GENERATED_TABLES), cleanedIncomplete ? (marker!.indexes ?? []) : []);
  await markLoading(db, scale.name, options.seed, indexes);
  await resetDatabase(db);
  await dropIndexes(db, indexes);

  const started = performance.now();
  progress.start(`generate ${scale.name}`, scale.blocks);
  const sink = target.createSink();
  let outcome: LedgerOutcome;
  try {
    outcome = await writeLedger(
      sink,
      {
        scale,
        seed: options.seed,
        system: options.system ?? { shard: 0n, realm: 0n },
        chainId: options.chainId ?? '0x128',
        layouts: fit.layouts,
      },
      target.chunkSize,
      (block, rows) => progress.update(block + 1, rows),
    );
  } catch (err) {
    progress.stop();
    await sink.abort();
    throw err;
  }
  progress.stop();
  const loadSeconds = (performance.now() - started) / 1000;
  progress.log(
    `loaded ${outcome.totalRows.toLocaleString('en-US')} rows in ${loadSeconds.toFixed(1)} s (${Math.round(outcome.totalRows / loadSeconds).toLocaleString('en-US')} rows/s)`,
  );

  const indexStarted = performance.now();
  await restoreIndexes(target.maintenance, db, indexes, target.parallelMaintenance, (d, seconds) =>
    progress.log(`  index ${d.table}.${d.name} built in ${seconds.toFixed(1)} s`),
  );
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  const analyzeStarted = performance.now();
  // vacuum too: the visibility map lets index-only scans skip the table (vacuum runs outside a transaction)
  for (const table of GENERATED_TABLES) await db.exec(`vacuum analyze ${table}`);
  const analyzeSeconds = (performance.now() - analyzeStarted) / 1000;
  progress.log(`indexes rebuilt in ${indexSeconds.toFixed(1)} s, tables analysed in ${analyzeSeconds.toFixed(1)} s`);

  const summary: DatasetSummary = {
    ...outcome.summary,
    load: { seconds: loadSeconds, rowsPerSecond: outcome.totalRows / loadSeconds, indexSeconds, analyzeSeconds, backend: db.backend },
  };
  await markComplete(db, summary);
  return { skipped: false, cleanedIncomplete, summary };
}
