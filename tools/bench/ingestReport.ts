/** The ingestion benchmark's options and figures: rates, the share of one core, the read/write split. */
import { parseArgs } from 'node:util';
import { BenchUsageError } from './options.js';
import { median } from './stats.js';

export const INGEST_USAGE = `usage: npm run bench -- ingest [--size ci|large] [options]

  --size S       ci (default): 4 nodes × 40 files × 500 records; large: 4 nodes × 150 files × 1,000 records
  --files N      record files (overrides the size's)
  --records N    records per file (overrides the size's)
  --backend B    postgres, pglite or both (default both)
  --runs N       repeated runs, medians reported (default 1 for ci, 3 for large)
  --out DIR      where results go (default tools/bench/results)
  --stream DIR   ingest this stream (as \`tools stream --ledger\` writes it) instead of writing one;
                 --files and --records must then say what it holds

Writes the synthetic signed stream (tools/stream, 2048-bit node keys, \`--ledger\`: its first files
create the topics, the 5,000 accounts and the tokens the rest uses) once into a temporary folder,
then runs \`lqs ingest --once\` in-process on it into a fresh database per run: a PostgreSQL database
lqs_ingbench_<pid>_<random> on LQS_BENCH_ADMIN_URL (default LQS_TEST_ADMIN_URL or the local server),
dropped afterwards, and a PGlite data directory in a temporary folder.`;

export interface IngestBenchOptions {
  size: 'ci' | 'large';
  nodes: number;
  files: number;
  recordsPerFile: number;
  backends: ('postgres' | 'pglite')[];
  runs: number;
  outDir: string;
  /** an existing stream to ingest, kept afterwards */
  stream: string | null;
}

const SIZES = { ci: { files: 40, recordsPerFile: 500 }, large: { files: 150, recordsPerFile: 1_000 } } as const;

function positiveInt(text: string, what: string): number {
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1) throw new BenchUsageError(`${what}: a positive integer, not ${text}`);
  return Number(text);
}

export function parseIngestBenchOptions(args: string[]): IngestBenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      size: { type: 'string', default: 'ci' },
      files: { type: 'string' },
      records: { type: 'string' },
      backend: { type: 'string', default: 'both' },
      runs: { type: 'string' },
      out: { type: 'string', default: 'tools/bench/results' },
      stream: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) throw new BenchUsageError('');
  const size = values.size;
  if (size !== 'ci' && size !== 'large') throw new BenchUsageError(`--size: ci or large, not ${size}`);
  const backend = values.backend;
  if (backend !== 'postgres' && backend !== 'pglite' && backend !== 'both')
    throw new BenchUsageError(`--backend: postgres, pglite or both, not ${backend}`);
  return {
    size,
    nodes: 4,
    files: values.files ? positiveInt(values.files, '--files') : SIZES[size].files,
    recordsPerFile: values.records ? positiveInt(values.records, '--records') : SIZES[size].recordsPerFile,
    backends: backend === 'both' ? ['postgres', 'pglite'] : [backend],
    runs: values.runs ? positiveInt(values.runs, '--runs') : size === 'ci' ? 1 : 3,
    outDir: values.out,
    stream: values.stream ?? null,
  };
}

/** One ingestion run as measured. */
export interface IngestRun {
  backend: string;
  run: number;
  files: number;
  records: number;
  wallMs: number;
  /** the ingesting process's user + kernel CPU time */
  cpuMs: number;
  /** the CPU time of the PostgreSQL server processes serving the run's connections; null for PGlite (in the process) */
  serverCpuMs: number | null;
  /** fetching, parsing and verifying the files */
  readMs: number;
  /** writing them, one database transaction per file */
  writeMs: number;
  /** the part of the writing the state appliers took (entities, balances, tokens, snapshots) */
  appliedMs: number;
}

export interface IngestFigures {
  backend: string;
  runs: number;
  files: number;
  records: number;
  recordsPerSecond: number;
  filesPerSecond: number;
  /** process CPU time / wall time (1 = one core busy) */
  coreShare: number;
  /** the PostgreSQL server processes' CPU time / wall time; null for PGlite */
  serverCoreShare: number | null;
  /** shares of the wall time */
  readShare: number;
  writeShare: number;
  /** the state appliers' share of the writing time */
  appliedOfWrite: number;
}

/** Medians over a backend's runs of each run's own figures. */
export function ingestFigures(runs: readonly IngestRun[]): IngestFigures[] {
  const backends = [...new Set(runs.map((r) => r.backend))];
  return backends.map((backend) => {
    const mine = runs.filter((r) => r.backend === backend);
    const of = (f: (r: IngestRun) => number) => median(mine.map(f));
    return {
      backend,
      runs: mine.length,
      files: of((r) => r.files),
      records: of((r) => r.records),
      recordsPerSecond: of((r) => (r.records * 1000) / r.wallMs),
      filesPerSecond: of((r) => (r.files * 1000) / r.wallMs),
      coreShare: of((r) => r.cpuMs / r.wallMs),
      serverCoreShare: mine.every((r) => r.serverCpuMs !== null) ? of((r) => r.serverCpuMs! / r.wallMs) : null,
      readShare: of((r) => r.readMs / r.wallMs),
      writeShare: of((r) => r.writeMs / r.wallMs),
      appliedOfWrite: of((r) => (r.writeMs > 0 ? r.appliedMs / r.writeMs : 0)),
    };
  });
}

const pct = (share: number) => `${Math.round(share * 100)} %`;

export function ingestMarkdown(figures: readonly IngestFigures[], heading: string): string {
  const lines = [
    heading,
    '',
    '| backend | runs | files | records | records/s | files/s | share of one core | PostgreSQL server | reading + verification | writing | state appliers (of writing) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of figures)
    lines.push(
      `| ${f.backend} | ${f.runs} | ${f.files} | ${f.records} | ${Math.round(f.recordsPerSecond)} | ${f.filesPerSecond.toFixed(1)} | ${f.coreShare.toFixed(2)} | ${f.serverCoreShare === null ? '-' : f.serverCoreShare.toFixed(2)} | ${pct(f.readShare)} | ${pct(f.writeShare)} | ${pct(f.appliedOfWrite)} |`,
    );
  return `${lines.join('\n')}\n`;
}
