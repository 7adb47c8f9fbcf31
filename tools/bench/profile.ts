/**
 * `node dist/tools/bench/profile.js [--scale S] [--targets a,b] [--load SECONDS [--by-kind] [--concurrency N] [--pool N] [--workers N]]`:
 * where to look before tuning an endpoint.
 *
 * Without `--load`, sends each distinct request of the bench mixes once, one at a time, and lists
 * the request kinds by their latency (median and worst), the slowest requests first.
 *
 * With `--load`, drives each target's mix for that many seconds at `--concurrency` connections
 * against a service started for that target alone under `--cpu-prof`, and reports the CPU time per
 * request of the service and of the PostgreSQL server processes on this host (which of the two
 * bounds the endpoint), and the service's functions with the most self time. The service's pool
 * is the bench's (`--pool`, default 2 × cores); the first mode uses the service's own default.
 *
 * With `--load` and `--by-kind`, drives each request kind of a target's mix alone (no profiler) and
 * lists the kinds by their share of the mix's CPU time: what a change to one kind would buy.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { consoleProgress } from '../generate/progress.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { hotFunctions, type CpuPerRequest } from './cpu.js';
import { prepareDataset, type BenchDataset } from './datasets.js';
import { runLoad, runLoadWithCpu, type LoadResult } from './load.js';
import { buildMixes } from './mixes.js';
import { BenchUsageError, isUsageError, parseBenchOptions } from './options.js';
import { serviceEnv, startService } from './service.js';
import { percentile } from './stats.js';
import { TARGET_NAMES, type MixRequest, type TargetName } from './targets.js';

async function latencyByKind(
  dataset: BenchDataset,
  mixes: Record<TargetName, MixRequest[]>,
  targets: TargetName[],
  per: number,
): Promise<void> {
  const service = await startService(dataset.env);
  try {
    for (const target of targets) {
      const distinct = [...new Map(mixes[target].map((r) => [r.path, r])).values()].slice(0, per);
      const byKind = new Map<string, number[]>();
      const slowest: [number, string, number][] = [];
      for (const request of distinct) {
        const started = performance.now();
        const res = await fetch(service.baseUrl + request.path);
        await res.arrayBuffer();
        const ms = performance.now() - started;
        byKind.set(request.kind, [...(byKind.get(request.kind) ?? []), ms]);
        slowest.push([ms, request.path, res.status]);
      }
      console.log(`\n== ${target}: ${distinct.length} requests`);
      const rows = [...byKind].map(([kind, times]) => {
        const sorted = Float64Array.from(times).sort();
        return { kind, n: times.length, p50: percentile(sorted, 50), max: sorted[sorted.length - 1]! };
      });
      for (const r of rows.sort((a, b) => b.max - a.max))
        console.log(
          `${r.kind.padEnd(48)} n=${String(r.n).padStart(4)}  p50 ${r.p50.toFixed(1).padStart(8)} ms  max ${r.max.toFixed(1).padStart(8)} ms`,
        );
      for (const [ms, path, status] of slowest.sort((a, b) => b[0] - a[0]).slice(0, 5))
        console.log(`  ${ms.toFixed(1)} ms ${status} ${path}`);
    }
  } finally {
    await service.stop();
  }
}

interface LoadOptions {
  seconds: number;
  concurrency: number;
  pool: number;
  workers: number;
  top: number;
}

async function cpuUnderLoad(
  dataset: BenchDataset,
  mixes: Record<TargetName, MixRequest[]>,
  targets: TargetName[],
  options: LoadOptions,
): Promise<void> {
  const { seconds, concurrency, top } = options;
  const profileRoot = resolve(PROJECT_ROOT, 'data', 'profiles');
  for (const target of targets) {
    const dir = join(profileRoot, target);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const service = await startService(serviceEnv(dataset.env, options), ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let measured: { result: LoadResult; cpu: CpuPerRequest };
    try {
      await runLoad(service.baseUrl, mixes[target], concurrency, 1); // warm-up
      measured = await runLoadWithCpu(service, mixes[target], concurrency, seconds);
    } finally {
      await service.stop();
    }
    const { result, cpu } = measured;
    const us = (v: number | null) => (v === null ? '–' : v.toFixed(0)).padStart(5);
    const ofCore = (v: number | null) => (v === null ? '–' : `${((v * result.rps) / 1e4).toFixed(0)}%`);
    console.log(
      `\n== ${target}: ${Math.round(result.rps)} req/s at ${concurrency} connections, p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms` +
        `\n   CPU per request: service ${us(cpu.service)} µs (${us(cpu.serviceKernel).trim()} µs of it in the kernel), PostgreSQL ${us(cpu.postgres)} µs` +
        ` (service ${ofCore(cpu.service)} of a core, PostgreSQL ${ofCore(cpu.postgres)}), load generator ${us(cpu.loadGenerator).trim()} µs (${ofCore(cpu.loadGenerator)})`,
    );
    // with workers, the busiest worker's profile (the supervisor's is nearly empty)
    const file = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
    if (!file) continue;
    for (const f of hotFunctions(readFileSync(join(dir, file), 'utf8'), top)) {
      console.log(`   ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name.padEnd(36)} ${f.location}`);
    }
  }
}

/** CPU per request of each request kind driven alone, and each kind's share of the mix's CPU time. */
async function cpuByKind(
  dataset: BenchDataset,
  mixes: Record<TargetName, MixRequest[]>,
  targets: TargetName[],
  options: LoadOptions,
): Promise<void> {
  const service = await startService(serviceEnv(dataset.env, options));
  try {
    for (const target of targets) {
      const kinds = new Map<string, MixRequest[]>();
      for (const r of mixes[target]) kinds.set(r.kind, [...(kinds.get(r.kind) ?? []), r]);
      const rows = [];
      for (const [kind, requests] of kinds) {
        await runLoad(service.baseUrl, requests, options.concurrency, 1); // warm-up
        const { result, cpu } = await runLoadWithCpu(service, requests, options.concurrency, options.seconds);
        const total = cpu.service + (cpu.postgres ?? 0);
        rows.push({
          kind,
          weight: requests.length / mixes[target].length,
          rps: result.rps,
          service: cpu.service,
          postgres: cpu.postgres ?? 0,
          total,
        });
      }
      const mean = rows.reduce((sum, r) => sum + r.weight * r.total, 0);
      console.log(
        `\n== ${target}: CPU per request of the mix ${mean.toFixed(0)} µs (service + PostgreSQL), by kind driven alone at ${options.concurrency} connections`,
      );
      for (const r of rows.sort((a, b) => b.weight * b.total - a.weight * a.total)) {
        console.log(
          `   ${r.kind.padEnd(40)} ${(r.weight * 100).toFixed(0).padStart(3)}% of requests  ${((r.weight * r.total * 100) / mean).toFixed(0).padStart(3)}% of CPU` +
            `  ${r.service.toFixed(0).padStart(6)} + ${r.postgres.toFixed(0).padStart(6)} µs/req  ${Math.round(r.rps).toString().padStart(6)} req/s`,
        );
      }
    }
  } finally {
    await service.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      scale: { type: 'string', default: 'small' },
      targets: { type: 'string' },
      per: { type: 'string', default: '300' },
      seed: { type: 'string', default: '1' },
      load: { type: 'string' },
      concurrency: { type: 'string', default: '32' },
      top: { type: 'string', default: '25' },
      pool: { type: 'string' },
      workers: { type: 'string' },
      'by-kind': { type: 'boolean', default: false },
    },
  });
  if (values['by-kind'] && !values.load) throw new BenchUsageError('--by-kind needs --load SECONDS');
  const passed = (name: 'pool' | 'workers' | 'concurrency') => (values[name] === undefined ? [] : [`--${name}`, values[name]!]);
  const options = parseBenchOptions([
    '--scale',
    values.scale!,
    '--compare',
    'none',
    '--seed',
    values.seed!,
    ...passed('pool'),
    ...passed('workers'),
    ...passed('concurrency'),
  ]);
  const dataset = await prepareDataset(options, options.scales[0]!, consoleProgress());
  const mixes = buildMixes(dataset.sample, options.seed);
  const targets = (values.targets?.split(',') ?? TARGET_NAMES) as TargetName[];
  for (const t of targets) if (!(TARGET_NAMES as readonly string[]).includes(t)) throw new BenchUsageError(`--targets: unknown ${t}`);
  if (values.load) {
    const load = {
      seconds: Number(values.load),
      concurrency: options.concurrency[0]!,
      pool: options.pool,
      workers: options.workers,
      top: Number(values.top),
    };
    await (values['by-kind'] ? cpuByKind : cpuUnderLoad)(dataset, mixes, targets, load);
  } else {
    await latencyByKind(dataset, mixes, targets, Number(values.per));
  }
}

main().catch((err: unknown) => {
  const usage = isUsageError(err);
  process.stderr.write(`${usage ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
  process.exitCode = usage ? 2 : 1;
});
