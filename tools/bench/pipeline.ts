/**
 * `node dist/tools/bench/pipeline.js [--scale S] [--schema K] [--seconds N] [--rounds N] [--concurrency N]`:
 * the fixed cost of the request pipeline. One service per configuration (every step on, each of the
 * pipeline's steps off alone, every step off: PIPELINE_STEPS of src/http/pipeline.ts), all started
 * at once, then in each round every configuration in turn drives the JSON ceiling and the PK
 * ceiling. Reported per configuration: the medians over rounds of the service's CPU per request and
 * req/s, and of the ratio to the all-on service measured in the same round (the machine's other
 * load moves every figure; a ratio within a round moves less).
 */
import { parseArgs } from 'node:util';
import { consoleProgress } from '../generate/progress.js';
import { PIPELINE_STEPS } from '../../src/http/pipeline.js';
import { prepareDataset } from './datasets.js';
import { runLoad, runLoadWithCpu } from './load.js';
import { buildMixes } from './mixes.js';
import { BenchUsageError, isUsageError, parseBenchOptions } from './options.js';
import { serviceEnv, startService, type BenchService } from './service.js';
import { median } from './stats.js';

const CONFIGS: { name: string; off: string[] }[] = [
  { name: 'all on', off: [] },
  ...PIPELINE_STEPS.map((step) => ({ name: `${step} off`, off: [step] })),
  { name: 'all off', off: [...PIPELINE_STEPS] },
];
const CEILINGS = ['ceiling-json', 'ceiling-pk'] as const;

interface Sample {
  config: string;
  ceiling: (typeof CEILINGS)[number];
  round: number;
  rps: number;
  serviceUs: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      scale: { type: 'string', default: 'small' },
      schema: { type: 'string', default: 'project' },
      seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '32' },
    },
  });
  const options = parseBenchOptions(['--scale', values.scale!, '--compare', 'none', '--schema', values.schema!, '--pool', '4']);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const concurrency = Number(values.concurrency);
  if (!(seconds >= 1 && rounds >= 1 && concurrency >= 1)) throw new BenchUsageError('--seconds, --rounds, --concurrency: positive numbers');
  const dataset = await prepareDataset(options, options.scales[0]!, consoleProgress());
  const mixes = buildMixes(dataset.sample, options.seed);
  const services: [string, BenchService][] = [];
  const samples: Sample[] = [];
  try {
    for (const c of CONFIGS) {
      const service = await startService({ ...serviceEnv(dataset.env, options), LQS_BENCH_PIPELINE_OFF: c.off.join(',') });
      services.push([c.name, service]);
      for (const ceiling of CEILINGS) await runLoad(service.baseUrl, mixes[ceiling], 8, 1); // warm-up
    }
    for (let round = 1; round <= rounds; round++) {
      for (const ceiling of CEILINGS) {
        for (const [config, service] of services) {
          const { result, cpu } = await runLoadWithCpu(service, mixes[ceiling], concurrency, seconds, round * 131);
          samples.push({ config, ceiling, round, rps: result.rps, serviceUs: cpu.service });
          process.stderr.write(
            `round ${round} ${ceiling.padEnd(12)} ${config.padEnd(16)} ${Math.round(result.rps)} req/s  service ${cpu.service.toFixed(0)} µs/req\n`,
          );
        }
      }
    }
  } finally {
    for (const [, service] of services) await service.stop();
  }
  const lines = [
    `| ceiling | configuration | service µs/req | of all on (same round) | req/s | of all on (same round) |`,
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const ceiling of CEILINGS) {
    for (const c of CONFIGS) {
      const own = samples.filter((s) => s.ceiling === ceiling && s.config === c.name);
      const ratio = (pick: (s: Sample) => number) =>
        median(own.map((s) => pick(s) / pick(samples.find((b) => b.ceiling === ceiling && b.config === 'all on' && b.round === s.round)!)));
      lines.push(
        `| ${ceiling} | ${c.name} | ${median(own.map((s) => s.serviceUs)).toFixed(0)} | ${ratio((s) => s.serviceUs).toFixed(2)} | ${Math.round(median(own.map((s) => s.rps)))} | ${ratio((s) => s.rps).toFixed(2)} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  const usage = isUsageError(err);
  process.stderr.write(`${usage ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
  process.exitCode = usage ? 2 : 1;
});
