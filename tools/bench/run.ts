/**
 * `npm run bench`: for each dataset size, makes sure the dataset exists and starts the service on it
 * in a child process; then measures every endpoint and both ceilings at each concurrency, `--runs`
 * times, each cell on every dataset in turn and each endpoint measurement followed by one of the PK
 * ceiling (its pair, for the share); then writes medians as JSON, Markdown and an SVG chart under
 * tools/bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { consoleProgress } from '../generate/progress.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { prepareDataset } from './datasets.js';
import { runLoad, runLoadWithCpu, settle } from './load.js';
import { connect } from 'node:net';
import { buildHotMixes, buildMixes } from './mixes.js';
import { brokenBudgets } from './budgets.js';
import { optionsOrUsage, parseBenchOptions, USAGE, type BenchOptions } from './options.js';
import {
  aggregate,
  aggregateCompression,
  aggregateHot,
  markdown,
  pairSeconds,
  svgChart,
  type BenchReport,
  type CompressionRow,
  type HotConfig,
  type HotMeasurement,
  type Measurement,
} from './report.js';
import { serviceEnv, startService, type BenchService } from './service.js';
import { CEILING_TARGETS, ENDPOINT_TARGETS, type MixRequest, type TargetName } from './targets.js';

const LIST_TARGETS: TargetName[] = ['accounts', 'account-nfts', 'blocks'];
/** share of a list endpoint's mix replaced by pages reached through links.next */
const NEXT_PAGE_SHARE = 0.15;
const WARM_UP_SECONDS = 1;

function log(message: string): void {
  process.stderr.write(message + '\n');
}

/**
 * Fetches first pages of the list endpoints' mixes and follows their `links.next` (two pages
 * deep), then puts those next pages into the mixes: the benchmark pages the way clients do.
 */
async function addNextPages(baseUrl: string, mixes: Record<TargetName, MixRequest[]>): Promise<void> {
  for (const target of LIST_TARGETS) {
    const mix = mixes[target];
    const firstPages = [...new Map(mix.filter((r) => r.expect === 'ok').map((r) => [r.path, r])).values()].slice(0, 60);
    const nextPages: MixRequest[] = [];
    for (const request of firstPages) {
      let path: string | null = request.path;
      for (let depth = 0; depth < 2 && path; depth++) {
        const res = await fetch(baseUrl + path);
        const body = (await res.json().catch(() => null)) as { links?: { next?: string | null } } | null;
        path = res.ok ? (body?.links?.next ?? null) : null;
        if (path) nextPages.push({ path, expect: 'ok', kind: `links.next page ${depth + 2}` });
      }
    }
    if (nextPages.length === 0) continue;
    const every = Math.round(1 / NEXT_PAGE_SHARE);
    for (let i = 0, k = 0; i < mix.length; i += every, k++) mix[i] = nextPages[k % nextPages.length]!;
  }
}

function describeMixes(mixes: Record<TargetName, MixRequest[]>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [target, mix] of Object.entries(mixes)) {
    const kinds: Record<string, number> = {};
    for (const r of mix) kinds[r.kind] = (kinds[r.kind] ?? 0) + 1;
    out[target] = kinds;
  }
  return out;
}

function summarize(m: Measurement): string {
  const non2xx = Object.entries(m.statuses).filter(([c]) => !c.startsWith('2'));
  const errors = Object.entries(m.socketErrors);
  return [
    `${m.scale.padEnd(6)} ${m.target.padEnd(28)} c=${String(m.concurrency).padEnd(4)} run ${m.run}`,
    `${Math.round(m.rps).toString().padStart(6)} req/s`,
    `p50 ${m.latencyMs.p50.toFixed(2)} ms`,
    `p99 ${m.latencyMs.p99.toFixed(2)} ms`,
    `p99.9 ${m.latencyMs.p999.toFixed(2)} ms`,
    `non-2xx ${non2xx.length ? non2xx.map(([c, n]) => `${c}:${n}`).join(' ') : 0}`,
    `unexpected ${m.unexpected}`,
    `socket errors ${errors.length ? errors.map(([c, n]) => `${c}:${n}`).join(' ') : 0}`,
    `rss ${m.rssPeakMb.toFixed(0)} MB`,
    `cpu/req service ${m.cpuUsPerRequest?.service.toFixed(0) ?? '–'} µs postgres ${m.cpuUsPerRequest?.postgres?.toFixed(0) ?? '–'} µs load ${m.cpuUsPerRequest?.loadGenerator.toFixed(0) ?? '–'} µs`,
  ].join('  ');
}

/** A dataset's service, ready to measure: its scale, its mixes, and a primary-key path to settle on. */
interface ScaleUnderTest {
  scale: string;
  service: BenchService;
  mixes: Record<TargetName, MixRequest[]>;
  pkPath: string;
  /** the service's environment for the dataset (the hot mixes start more services on it) */
  env: Record<string, string | undefined>;
  hotMixes: Partial<Record<TargetName, MixRequest[]>>;
}

async function warmUp(options: BenchOptions, s: ScaleUnderTest): Promise<void> {
  for (const target of options.targets) {
    await runLoad(s.service.baseUrl, s.mixes[target], 8, WARM_UP_SECONDS);
    await settle(s.service.baseUrl, s.pkPath);
  }
}

async function measure(s: ScaleUnderTest, target: TargetName, concurrency: number, run: number, seconds: number): Promise<Measurement> {
  s.service.rssStart();
  const { result, cpu: cpuUsPerRequest } = await runLoadWithCpu(
    s.service,
    s.mixes[target],
    concurrency,
    seconds,
    run * 997 + concurrency * 31,
  );
  const rssPeakMb = (await s.service.rssStop()) / (1 << 20);
  const m: Measurement = { ...result, scale: s.scale, target, concurrency, run, rssPeakMb, cpuUsPerRequest };
  log(summarize(m));
  for (const example of m.unexpectedExamples) log(`    unexpected: ${example}`);
  await settle(s.service.baseUrl, s.pkPath);
  return m;
}

/**
 * Every cell (run, target, concurrency) on each dataset in turn, back to back, so that the
 * comparison of the datasets and the share of the ceiling (each endpoint measurement is followed
 * by its pair, a PK ceiling measurement) are taken minutes apart at most instead of a whole pass.
 */
async function measureAll(options: BenchOptions, scales: readonly ScaleUnderTest[]): Promise<Measurement[]> {
  const measurements: Measurement[] = [];
  for (let run = 1; run <= options.runs; run++) {
    for (const target of options.targets) {
      for (const concurrency of options.concurrency) {
        for (const s of scales) {
          const m = await measure(s, target, concurrency, run, options.durationSeconds);
          measurements.push(m);
          if ((CEILING_TARGETS as readonly string[]).includes(target)) continue;
          const pair = await measure(s, 'ceiling-pk', concurrency, run, pairSeconds(options.durationSeconds));
          measurements.push({ ...pair, paired: true });
          m.pairedPkCeilingRps = pair.rps;
        }
      }
    }
  }
  return measurements;
}

/** The endpoints whose bodies pass the compression threshold most, and the encodings compared. */
const COMPRESSION_TARGETS: TargetName[] = ['accounts', 'account-nfts', 'blocks'];
const ENCODINGS: [CompressionRow['encoding'], Record<string, string>][] = [
  ['identity', {}],
  ['gzip', { 'accept-encoding': 'gzip' }],
  ['br', { 'accept-encoding': 'br' }],
];
const COMPRESSION_ROUNDS = 2;
const COMPRESSION_CONCURRENCY = 8;

/** The CPU cost of compression: each endpoint's mix under each Accept-Encoding, in rounds taken back to back. */
async function measureCompression(options: BenchOptions, s: ScaleUnderTest): Promise<CompressionRow[]> {
  const samples: Parameters<typeof aggregateCompression>[0] = [];
  for (const target of COMPRESSION_TARGETS.filter((t) => options.targets.includes(t))) {
    for (let round = 1; round <= COMPRESSION_ROUNDS; round++) {
      for (const [encoding, headers] of ENCODINGS) {
        const { result, cpu } = await runLoadWithCpu(
          s.service,
          s.mixes[target],
          COMPRESSION_CONCURRENCY,
          options.durationSeconds,
          round * 101,
          headers,
        );
        const sample = {
          scale: s.scale,
          target,
          encoding,
          concurrency: COMPRESSION_CONCURRENCY,
          round,
          rps: result.rps,
          bytesPerResponse: result.bytesPerResponse ?? NaN,
          serviceCpuUs: cpu.service,
        };
        samples.push(sample);
        log(
          `compression ${s.scale} ${target.padEnd(14)} ${encoding.padEnd(8)} round ${round}  ${Math.round(result.rps)} req/s  ${Math.round(sample.bytesPerResponse)} B/response  cpu/req service ${cpu.service.toFixed(0)} µs`,
        );
        await settle(s.service.baseUrl, s.pkPath);
      }
    }
  }
  return aggregateCompression(samples);
}

/** Whether something accepts TCP connections at the host and port of `url` (within a second). */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The hot mixes on the larger dataset: every endpoint's mix on the service without the cache (the
 * cold mixes' service), on one with the in-process cache, and on two processes sharing the cache
 * through Redis; each measurement followed by the PK ceiling of the same service, as the cold ones.
 */
async function measureHot(options: BenchOptions, s: ScaleUnderTest): Promise<HotMeasurement[]> {
  const targets = options.targets.filter(
    (t): t is (typeof ENDPOINT_TARGETS)[number] => (ENDPOINT_TARGETS as readonly string[]).includes(t) && s.hotMixes[t] !== undefined,
  );
  if (options.hotConcurrency.length === 0 || targets.length === 0) return [];
  if (options.backend !== 'postgres') {
    log('hot mixes: PostgreSQL only (a PGlite dataset is open in one process at a time)');
    return [];
  }
  const services: [HotConfig, BenchService][] = [['no cache', s.service]];
  const started: BenchService[] = [];
  const measurements: HotMeasurement[] = [];
  try {
    const cached = await startService(serviceEnv(s.env, options, { enabled: true }));
    started.push(cached);
    services.push(['cache', cached]);
    if (!options.redisUrl) log('hot mixes: no Redis (--redis none)');
    else if (!(await answers(options.redisUrl)))
      log(`hot mixes: Redis at ${options.redisUrl} does not answer; the shared configuration is left out`);
    else {
      // a fresh key prefix: nothing of an earlier run is read
      const redisKeyPrefix = `lqs-bench:${s.scale}:${process.pid}:${Date.now()}:`;
      const shared = await startService(
        serviceEnv(s.env, { ...options, workers: 2 }, { enabled: true, redisUrl: options.redisUrl, redisKeyPrefix }),
      );
      started.push(shared);
      services.push(['cache + Redis, 2 processes', shared]);
    }
    // the new services warm up on the PK ceiling only: their caches start empty, so the first
    // measurement of each mix includes filling them (and, with Redis, one process reading what the other stored)
    for (const service of started) {
      await runLoad(service.baseUrl, s.mixes['ceiling-pk'], 8, WARM_UP_SECONDS);
      await settle(service.baseUrl, s.pkPath);
    }
    for (let run = 1; run <= options.runs; run++) {
      for (const target of targets) {
        for (const concurrency of options.hotConcurrency) {
          for (const [config, service] of services) {
            const before = await service.cacheCounters();
            const { result } = await runLoadWithCpu(
              service,
              s.hotMixes[target]!,
              concurrency,
              options.durationSeconds,
              run * 997 + concurrency * 31,
            );
            const after = await service.cacheCounters();
            await settle(service.baseUrl, s.pkPath);
            const pk = await runLoad(service.baseUrl, s.mixes['ceiling-pk'], concurrency, pairSeconds(options.durationSeconds), run * 991);
            await settle(service.baseUrl, s.pkPath);
            const hits = after.hits - before.hits;
            const lookups = hits + after.misses - before.misses;
            const m: HotMeasurement = {
              ...result,
              scale: s.scale,
              target,
              config,
              concurrency,
              run,
              pairedPkCeilingRps: pk.rps,
              hitRatio: lookups > 0 ? hits / lookups : NaN,
              redisHitShare: hits > 0 && config !== 'cache' ? (after.redisHits - before.redisHits) / hits : NaN,
              redisErrors: after.redisErrors - before.redisErrors,
            };
            // the paired ceiling's failures count as the measurement's
            for (const [code, n] of Object.entries(pk.statuses)) if (code.startsWith('5')) m.statuses[`${code} (PK ceiling)`] = n;
            for (const [code, n] of Object.entries(pk.socketErrors)) m.socketErrors[`${code} (PK ceiling)`] = n;
            measurements.push(m);
            log(
              `${s.scale.padEnd(6)} hot ${target.padEnd(28)} c=${String(concurrency).padEnd(4)} ${config.padEnd(27)} ${Math.round(m.rps).toString().padStart(6)} req/s  ` +
                `of PK ${((m.rps / pk.rps) * 100).toFixed(0)}% (${Math.round(pk.rps)})  p50 ${m.latencyMs.p50.toFixed(2)} ms  p99 ${m.latencyMs.p99.toFixed(2)} ms  ` +
                `hits ${Number.isFinite(m.hitRatio) ? (m.hitRatio * 100).toFixed(1) + '%' : '–'}${Number.isFinite(m.redisHitShare) ? ` (Redis ${(m.redisHitShare * 100).toFixed(0)}%)` : ''}  ` +
                `unexpected ${m.unexpected}  redis errors ${m.redisErrors}`,
            );
            for (const example of m.unexpectedExamples) log(`    unexpected: ${example}`);
          }
        }
      }
    }
  } finally {
    for (const service of started) await service.stop();
  }
  return measurements;
}

/** `lqs-tools bench …`: the exit code (2 for a wrong command line, after the usage). */
export async function runBench(args: string[]): Promise<number> {
  if (args[0] === 'ingest') return (await import('./ingest.js')).runIngestBench(args.slice(1));
  if (args[0] === 'driver') return (await import('./driver.js')).runDriverBench(args.slice(1));
  if (args[0] === 'pair') return (await import('./pair.js')).runPairBench(args.slice(1));
  const options = optionsOrUsage(() => parseBenchOptions(args), USAGE);
  if (options === null) return 2;
  const startedAt = new Date();
  const datasets: BenchReport['datasets'] = [];
  const mixesByScale: BenchReport['mixes'] = {};
  let backend: string = options.backend;
  const scales: ScaleUnderTest[] = [];
  let measurements: Measurement[];
  let compression: CompressionRow[];
  let hotMeasurements: HotMeasurement[] = [];
  try {
    for (const scale of options.scales) {
      log(`== ${scale} dataset (${options.backend}${options.schema === 'mirror' ? ", mirror node's schema" : ''}, seed ${options.seed})`);
      const dataset = await prepareDataset(options, scale, consoleProgress());
      const { summary } = dataset.sample;
      datasets.push({ scale, totalRows: summary.totalRows, rows: summary.rows, load: summary.load });
      const mixes = buildMixes(dataset.sample, options.seed);
      const service = await startService(serviceEnv(dataset.env, options));
      const hotMixes = buildHotMixes(dataset.sample, options.seed);
      const s: ScaleUnderTest = { scale, service, mixes, pkPath: mixes['ceiling-pk'][0]!.path, env: dataset.env, hotMixes };
      scales.push(s);
      backend = service.backend;
      await addNextPages(service.baseUrl, mixes);
      mixesByScale[scale] = describeMixes(mixes);
      await warmUp(options, s);
    }
    measurements = await measureAll(options, scales);
    compression = await measureCompression(options, scales[scales.length - 1]!);
    hotMeasurements = await measureHot(options, scales[scales.length - 1]!);
  } finally {
    for (const s of scales) await s.service.stop();
  }

  const report: BenchReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    backend,
    options: {
      seed: options.seed,
      ...(options.schema === 'mirror' ? { schema: options.schema } : {}),
      pool: options.pool,
      workers: options.workers,
      runs: options.runs,
      durationSeconds: options.durationSeconds,
      concurrency: options.concurrency,
      targets: options.targets,
    },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / (1 << 30)),
      node: process.version,
    },
    datasets,
    mixes: mixesByScale,
    results: aggregate(measurements, options.scales),
    measurements,
    compression,
    ...(hotMeasurements.length > 0 ? { hot: aggregateHot(hotMeasurements), hotMeasurements } : {}),
  };
  const outDir = resolve(PROJECT_ROOT, options.outDir);
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `${backend}${options.schema === 'mirror' ? '-mirror' : ''}-${options.scales[options.scales.length - 1]}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown(report));
  writeFileSync(`${base}.svg`, svgChart(report));
  log(`\nresults: ${base}.json, .md, .svg\n`);
  process.stdout.write(markdown(report));

  // every measurement, the paired ceilings' included
  const failures = [...measurements, ...hotMeasurements].filter(
    (m) => Object.keys(m.socketErrors).length > 0 || Object.keys(m.statuses).some((c) => c.startsWith('5')),
  );
  for (const m of failures)
    log(
      `FAILED: ${m.scale} ${m.target}${'config' in m ? ` hot (${m.config})` : ''} c=${m.concurrency} run ${m.run}: statuses ${JSON.stringify(m.statuses)}, socket errors ${JSON.stringify(m.socketErrors)}`,
    );
  for (const r of report.hot ?? [])
    if (r.unexpected > 0)
      log(
        `note: ${r.scale} hot ${r.target} (${r.config}) c=${r.concurrency}: ${r.unexpected} responses with another status than the mix expects`,
      );
  const unexpected = report.results.filter((r) => r.unexpected > 0);
  for (const r of unexpected)
    log(`note: ${r.scale} ${r.target} c=${r.concurrency}: ${r.unexpected} responses with another status than the mix expects`);
  const overBudget = brokenBudgets(options.p99Budgets, report.results, options.scales[options.scales.length - 1]!);
  for (const line of overBudget) log(`FAILED budget: ${line}`);
  for (const b of options.p99Budgets)
    if (!overBudget.some((line) => line.includes(` ${b.target} c=${b.concurrency}:`)))
      log(`budget kept: ${b.target} c=${b.concurrency} p99 ≤ ${b.maxMs} ms`);
  return failures.length > 0 || overBudget.length > 0 ? 1 : 0;
}
