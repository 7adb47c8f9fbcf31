/**
 * `npm run soak`: the mixed benchmark traffic of every endpoint at high concurrency for a bounded
 * time, against the service in a child process. Passes when no response is a 5xx, no connection
 * fails, and the service's memory and open files are as steady at the end as after warm-up.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { UserError } from '../../src/userError.js';
import { consoleProgress } from '../generate/progress.js';
import { prepareDataset } from './datasets.js';
import { runLoad } from './load.js';
import { buildMixes } from './mixes.js';
import { parseBenchOptions } from './options.js';
import { startService } from './service.js';
import { serverErrorCount } from './stats.js';
import { ENDPOINT_TARGETS, type MixRequest } from './targets.js';

const WARM_UP_SECONDS = 10;
const ROUND_SECONDS = 10;
/**
 * Growth allowed between the first and the last sample (allocator and JIT settle, small caches
 * fill), beside the response cache's own bound: its entries may all arrive during the soak.
 */
const RSS_SLACK = { factor: 1.25, mb: 64 };

/** The MiB the service's response cache may hold, as the service child's configuration sets it. */
function responseCacheBoundMb(env: NodeJS.ProcessEnv): number {
  const { cache } = loadConfig(env);
  return cache.enabled ? cache.maxBytes / 2 ** 20 : 0;
}
const FD_SLACK = 16;
/** after a round, the clients' connections take a moment to close on the server side */
const SETTLE_MS = 2000;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Open files by kind (socket, pipe, anon_inode:…, or a path), for a report on growth. */
function openFileKinds(pid: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = 'gone';
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`).replace(/:\[\d+\]$/, '');
    } catch {
      // closed meanwhile
    }
    kinds[target] = (kinds[target] ?? 0) + 1;
  }
  return kinds;
}

function interleave(mixes: MixRequest[][]): MixRequest[] {
  const longest = Math.max(...mixes.map((m) => m.length));
  const out: MixRequest[] = [];
  for (let i = 0; i < longest; i++) for (const mix of mixes) if (i < mix.length) out.push(mix[i]!);
  return out;
}

/** `lqs-tools soak …`: 0 when the soak passed, 1 when it failed. */
export async function runSoak(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: 'string', default: 'small' },
      backend: { type: 'string', default: 'postgres' },
      seed: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '180' },
      concurrency: { type: 'string', default: '128' },
    },
  });
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(seconds) || seconds < ROUND_SECONDS || seconds > 3600) throw new UserError('--seconds: 10 to 3600');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw new UserError('--concurrency: 1 to 1024');
  const options = parseBenchOptions(['--scale', values.scale!, '--compare', 'none', '--backend', values.backend!, '--seed', values.seed!]);
  const dataset = await prepareDataset(options, options.scales[0]!, consoleProgress());
  const mixes = buildMixes(dataset.sample, options.seed);
  const mix = interleave(ENDPOINT_TARGETS.map((t) => mixes[t]));

  const service = await startService(dataset.env);
  const cacheMb = responseCacheBoundMb({ ...process.env, ...dataset.env });
  try {
    await runLoad(service.baseUrl, mix, concurrency, WARM_UP_SECONDS);
    await sleep(SETTLE_MS);
    const start = { rssMb: rssMb(service.pid), openFiles: openFiles(service.pid), kinds: openFileKinds(service.pid) };
    const statuses: Record<string, number> = {};
    const socketErrors: Record<string, number> = {};
    let requests = 0;
    let unexpected = 0;
    for (let elapsed = 0, round = 0; elapsed < seconds; elapsed += ROUND_SECONDS, round++) {
      const result = await runLoad(service.baseUrl, mix, concurrency, ROUND_SECONDS, round * 7919);
      requests += result.requests;
      unexpected += result.unexpected;
      for (const [code, n] of Object.entries(result.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
      for (const [code, n] of Object.entries(result.socketErrors)) socketErrors[code] = (socketErrors[code] ?? 0) + n;
      process.stderr.write(
        `soak ${elapsed + ROUND_SECONDS}s: ${Math.round(result.rps)} req/s, p99 ${result.latencyMs.p99.toFixed(1)} ms, rss ${rssMb(service.pid).toFixed(0)} MB, fds ${openFiles(service.pid)}\n`,
      );
    }
    await sleep(SETTLE_MS);
    const end = { rssMb: rssMb(service.pid), openFiles: openFiles(service.pid), kinds: openFileKinds(service.pid) };
    const fiveXx = serverErrorCount(statuses);
    const errors = Object.values(socketErrors).reduce((a, b) => a + b, 0);
    const problems = [
      ...(fiveXx > 0 ? [`${fiveXx} responses with a 5xx status`] : []),
      ...(errors > 0 ? [`socket errors ${JSON.stringify(socketErrors)}`] : []),
      ...(end.rssMb > start.rssMb * RSS_SLACK.factor + RSS_SLACK.mb + cacheMb
        ? [`RSS grew from ${start.rssMb.toFixed(0)} to ${end.rssMb.toFixed(0)} MB`]
        : []),
      ...(end.openFiles > start.openFiles + FD_SLACK
        ? [`open files grew from ${start.openFiles} ${JSON.stringify(start.kinds)} to ${end.openFiles} ${JSON.stringify(end.kinds)}`]
        : []),
    ];
    console.log(
      [
        `soak: ${requests} requests in ${seconds} s at ${concurrency} connections (${options.backend}, ${options.scales[0]} dataset)`,
        `statuses ${JSON.stringify(statuses)}, unexpected statuses ${unexpected}, socket errors ${errors}`,
        `RSS ${start.rssMb.toFixed(0)} MB after warm-up, ${end.rssMb.toFixed(0)} MB at the end (allowed: ×${RSS_SLACK.factor} + ${RSS_SLACK.mb} MB + the response cache's ${cacheMb} MB); open files ${start.openFiles} → ${end.openFiles}`,
        problems.length ? `FAILED: ${problems.join('; ')}` : 'soak passed',
      ].join('\n'),
    );
    return problems.length ? 1 : 0;
  } finally {
    await service.stop();
  }
}
