/**
 * `npm run bench -- ingest`: ingestion speed. Writes the synthetic signed record stream once (its
 * first files creating the ledger the rest uses, so that the state appliers have rows to change), then
 * runs the `lqs ingest --once` command's code (`runIngestCommand`) on it into a fresh PostgreSQL
 * database and a fresh PGlite directory per run, timing the walk (reading and verification) and the
 * writes, and the state appliers' part of them, through the ingester's `timed` hook; prints and
 * writes medians of the runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configWith, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { runIngestCommand } from '../../src/ingest/cli.js';
import { resolveIngestion } from '../../src/ingest/setup.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { createScratchDatabase, DEFAULT_ADMIN_URL } from '../db/scratch.js';
import { writeStream } from '../stream/writeStream.js';
import { processCpuTimes } from './cpu.js';
import { optionsOrUsage } from './options.js';
import { INGEST_USAGE, type IngestRun, ingestFigures, ingestMarkdown, parseIngestBenchOptions } from './ingestReport.js';

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

async function ingestOnce(backend: 'postgres' | 'pglite', stream: string, run: number): Promise<IngestRun> {
  const adminUrl = process.env.LQS_BENCH_ADMIN_URL ?? process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
  const scratch = backend === 'postgres' ? await createScratchDatabase(adminUrl, 'lqs_ingbench') : null;
  const dataDir = backend === 'pglite' ? await mkdtemp(join(tmpdir(), 'lqs-ingbench-')) : '';
  try {
    const config = configWith({ db: { url: scratch?.url ?? '', dataDir, migrate: false } }, loadConfig({}));
    const resolved = await resolveIngestion({ ...config.ingest, source: stream, addressBook: join(stream, 'addressbook.bin') });
    const db = await openDatabase(config);
    try {
      const spent = { read: 0n, write: 0n, applied: 0n };
      const cpuBefore = process.cpuUsage();
      const started = process.hrtime.bigint();
      const progress = await runIngestCommand(db, config, resolved, true, (phase, nanos) => {
        spent[phase] += nanos;
      });
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const cpu = process.cpuUsage(cpuBefore);
      // the server processes of this database's connections, opened for this run only (PostgreSQL on this host)
      let serverCpuMs: number | null = null;
      if (scratch) {
        const pids = await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()');
        serverCpuMs = pids.map((p) => processCpuTimes(p.pid)).reduce((sum, t) => sum + t.userMs + t.kernelMs, 0);
      }
      return {
        backend,
        run,
        files: progress.files,
        records: progress.records,
        wallMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        serverCpuMs,
        readMs: Number(spent.read) / 1e6,
        writeMs: Number(spent.write) / 1e6,
        appliedMs: Number(spent.applied) / 1e6,
      };
    } finally {
      await db.close();
      await resolved.source.close();
    }
  } finally {
    await scratch?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

export async function runIngestBench(args: string[]): Promise<number> {
  const options = optionsOrUsage(() => parseIngestBenchOptions(args), INGEST_USAGE);
  if (options === null) return 2;
  const stream = options.stream ?? (await mkdtemp(join(tmpdir(), 'lqs-ingbench-stream-')));
  const runs: IngestRun[] = [];
  const load = loadavg()[0]!;
  try {
    if (options.stream === null) {
      log(`writing ${options.files} files × ${options.recordsPerFile} records × ${options.nodes} nodes`);
      await writeStream({
        out: stream,
        nodes: options.nodes,
        files: options.files,
        recordsPerFile: options.recordsPerFile,
        keyBits: 2048,
        ledger: true,
      });
    }
    for (let run = 1; run <= options.runs; run++)
      for (const backend of options.backends) {
        const r = await ingestOnce(backend, stream, run);
        log(`${backend} run ${run}: ${r.records} records in ${(r.wallMs / 1000).toFixed(1)} s`);
        runs.push(r);
      }
  } finally {
    if (options.stream === null) await rm(stream, { recursive: true, force: true });
  }
  const figures = ingestFigures(runs);
  const heading =
    `Ingestion, ${options.nodes} nodes × ${options.files} files × ${options.recordsPerFile} records ` +
    `(${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, load average ${load.toFixed(1)} at the start, node ${process.version})`;
  const markdown = ingestMarkdown(figures, heading);
  const outDir = resolve(PROJECT_ROOT, options.outDir);
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `ingest-${options.size}`);
  writeFileSync(`${base}.json`, `${JSON.stringify({ options, loadAverage: load, figures, runs }, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  log(`\nresults: ${base}.json, .md\n`);
  process.stdout.write(markdown);
  return runs.every((r) => r.files === options.files) ? 0 : 1;
}
