/**
 * `node dist/bench/profile.js [--scale S] [--targets a,b]`: sends each distinct request of the
 * bench mixes once, one at a time, and lists the request kinds by their latency (median and
 * worst), the slowest requests first: where to look before tuning a query.
 */
import { parseArgs } from 'node:util';
import { consoleProgress } from '../src/generate/progress.js';
import { prepareDataset } from './datasets.js';
import { buildMixes } from './mixes.js';
import { parseBenchOptions } from './options.js';
import { startService } from './service.js';
import { percentile } from './stats.js';
import { ENDPOINT_TARGETS, type TargetName } from './targets.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { scale: { type: 'string', default: 'small' }, targets: { type: 'string' }, per: { type: 'string', default: '300' }, seed: { type: 'string', default: '1' } },
  });
  const options = parseBenchOptions(['--scale', values.scale!, '--compare', 'none', '--seed', values.seed!]);
  const dataset = await prepareDataset(options, options.scales[0]!, consoleProgress());
  const mixes = buildMixes(dataset.sample, options.seed);
  const targets = (values.targets?.split(',') ?? ENDPOINT_TARGETS) as TargetName[];
  const service = await startService(dataset.env);
  try {
    for (const target of targets) {
      const distinct = [...new Map(mixes[target].map((r) => [r.path, r])).values()].slice(0, Number(values.per));
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
      for (const r of rows.sort((a, b) => b.max - a.max)) console.log(`${r.kind.padEnd(48)} n=${String(r.n).padStart(4)}  p50 ${r.p50.toFixed(1).padStart(8)} ms  max ${r.max.toFixed(1).padStart(8)} ms`);
      for (const [ms, path, status] of slowest.sort((a, b) => b[0] - a[0]).slice(0, 5)) console.log(`  ${ms.toFixed(1)} ms ${status} ${path}`);
    }
  } finally {
    await service.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
