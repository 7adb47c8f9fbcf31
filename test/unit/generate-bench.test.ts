import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { cpuMsBetween, hotFunctions } from '../../tools/bench/cpu.js';
import { BenchUsageError, parseBenchOptions } from '../../tools/bench/options.js';
import { brokenBudgets } from '../../tools/bench/budgets.js';
import { aggregate, aggregateCompression, markdown, svgChart, type BenchReport, type Measurement } from '../../tools/bench/report.js';
import { median, percentile, serverErrorCount } from '../../tools/bench/stats.js';
import { meetsExpectation, TARGET_NAMES, type TargetName } from '../../tools/bench/targets.js';

function measurement(
  scale: string,
  target: TargetName,
  concurrency: number,
  run: number,
  rps: number,
  p50: number,
  statuses: Record<string, number> = { 200: 100 },
): Measurement {
  return {
    scale,
    target,
    concurrency,
    run,
    rps,
    requests: 100,
    seconds: 1,
    latencyMs: { p50, p99: p50 * 3, p999: p50 * 5, mean: p50, max: p50 * 6 },
    statuses,
    unexpected: 0,
    unexpectedExamples: [],
    socketErrors: {},
    rssPeakMb: 100 + run,
    cpuUsPerRequest: { service: 100 * run, serviceKernel: 10, postgres: 50 * run, loadGenerator: 30 * run },
  };
}

describe('bench statistics', () => {
  it('takes nearest-rank percentiles and medians', () => {
    const sorted = Float64Array.from({ length: 1000 }, (_, i) => i + 1);
    assert.equal(percentile(sorted, 50), 500);
    assert.equal(percentile(sorted, 99), 990);
    assert.equal(percentile(sorted, 99.9), 999);
    assert.ok(Number.isNaN(percentile([], 50)));
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
  });

  it('counts the 5xx responses among counts by status', () => {
    assert.equal(serverErrorCount({ '200': 90, '404': 3, '500': 2, '503': 4 }), 6);
    assert.equal(serverErrorCount({ '200': 90, '400': 1 }), 0);
    assert.equal(serverErrorCount({}), 0);
  });

  it('checks statuses against what a request of the mix expects', () => {
    assert.ok(meetsExpectation(206, 'ok'));
    assert.ok(!meetsExpectation(404, 'ok'));
    assert.ok(meetsExpectation(404, 404));
    assert.ok(!meetsExpectation(400, 404));
  });
});

describe('bench options', () => {
  it('compares a scale with the next smaller one, quickly for small', () => {
    const o = parseBenchOptions(['--scale', 'small'], {});
    assert.deepEqual(o.scales, ['tiny', 'small']);
    assert.equal(o.runs, 1);
    assert.equal(o.durationSeconds, 2);
    assert.deepEqual(o.concurrency, [1, 8, 32, 128]);
    assert.deepEqual(o.targets, [...TARGET_NAMES]);
    assert.equal(o.backend, 'postgres');
    const m = parseBenchOptions(['--scale', 'medium', '--backend', 'pglite', '--targets', 'blocks,ceiling-json', '--compare', 'none'], {});
    assert.deepEqual(m.scales, ['medium']);
    assert.equal(m.runs, 3);
    assert.deepEqual(m.targets, ['blocks', 'ceiling-json']);
    assert.throws(() => parseBenchOptions(['--scale', 'huge'], {}));
    assert.throws(() => parseBenchOptions(['--targets', 'nope'], {}));
    assert.throws(() => parseBenchOptions(['--concurrency', '0'], {}));
  });

  it('reads p99 budgets and checks them on the larger dataset, a missing measurement counting as broken', () => {
    const o = parseBenchOptions(['--p99-budget', 'accounts@32=250, block@8=20.5'], {});
    assert.deepEqual(o.p99Budgets, [
      { target: 'accounts', concurrency: 32, maxMs: 250 },
      { target: 'block', concurrency: 8, maxMs: 20.5 },
    ]);
    assert.deepEqual(parseBenchOptions([], {}).p99Budgets, []);
    for (const bad of ['accounts=250', 'nope@32=250', 'accounts@0=250', 'accounts@32=0', 'accounts@32=x'])
      assert.throws(() => parseBenchOptions(['--p99-budget', bad], {}), BenchUsageError, bad);
    const results = [
      { scale: 'small', target: 'accounts' as const, concurrency: 32, p99Ms: 240 },
      { scale: 'small', target: 'block' as const, concurrency: 8, p99Ms: 21 },
      { scale: 'tiny', target: 'block' as const, concurrency: 8, p99Ms: 1 },
    ];
    assert.deepEqual(brokenBudgets(o.p99Budgets, results, 'small'), ['small block c=8: p99 21.00 ms over its budget of 20.5 ms']);
    assert.deepEqual(brokenBudgets(o.p99Budgets, results.slice(0, 1), 'small'), ['small block c=8: not measured (budget p99 ≤ 20.5 ms)']);
    assert.deepEqual(brokenBudgets(o.p99Budgets.slice(0, 1), results, 'small'), []);
  });

  it('sizes the pool to this machine (the bench runs PostgreSQL here) and runs one process unless told', () => {
    const o = parseBenchOptions([], {});
    assert.equal(o.pool, 2 * availableParallelism());
    assert.equal(o.workers, 1);
    const m = parseBenchOptions(['--pool', '10', '--workers', '0'], {});
    assert.equal(m.pool, 10);
    assert.equal(m.workers, availableParallelism());
    assert.throws(() => parseBenchOptions(['--pool', '0'], {}));
    assert.throws(() => parseBenchOptions(['--workers', 'two'], {}));
  });
});

describe('bench CPU accounting', () => {
  it('adds up CPU between readings, counting a process that appeared in between whole', () => {
    const before = new Map([
      [1, 100],
      [2, 50],
    ]);
    const after = new Map([
      [1, 160],
      [2, 50],
      [3, 7],
    ]);
    assert.equal(cpuMsBetween(before, after), 67);
  });

  it('ranks the functions of a V8 CPU profile by self time, summed over call paths', () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('render', 'file:///app/dist/view.js', 9) },
        { id: 3, callFrame: frame('parse', 'file:///app/node_modules/pg/lib/result.js', 62) },
        { id: 4, callFrame: frame('render', 'file:///app/dist/view.js', 9) },
      ],
      samples: [2, 3, 4, 2, 1],
      timeDeltas: [1000, 3000, 2000, 1000, 1000],
    };
    const hot = hotFunctions(JSON.stringify(profile), 2);
    assert.deepEqual(
      hot.map((f) => [f.name, f.location, f.selfMs, f.share]),
      [
        ['render', '/app/dist/view.js:10', 4, 0.5],
        ['parse', 'pg/lib/result.js:63', 3, 0.375],
      ],
    );
  });
});

describe('bench report', () => {
  const measurements = [
    ...[1, 2, 3].map((run) => measurement('small', 'blocks', 8, run, 1000 + run * 100, 2 * run, { 200: 90, 400: 10 })),
    ...[1, 2, 3].map((run) => measurement('tiny', 'blocks', 8, run, 1500, run)),
    ...[1, 2, 3].map((run) => measurement('small', 'ceiling-json', 8, run, 4000, 0.5)),
    ...[1, 2, 3].map((run) => measurement('small', 'ceiling-pk', 8, run, 2000, 1)),
  ];
  const results = aggregate(measurements, ['tiny', 'small']);

  it('reports medians over runs, ratios to the ceilings and growth with the dataset', () => {
    const blocks = results.find((r) => r.scale === 'small' && r.target === 'blocks')!;
    assert.equal(blocks.runs, 3);
    assert.equal(blocks.rps, 1200);
    assert.equal(blocks.p50Ms, 4);
    assert.deepEqual(blocks.non2xx, { 400: 30 });
    assert.equal(blocks.ofJsonCeiling, 0.3);
    assert.equal(blocks.ofPkCeiling, 0.6);
    assert.equal(blocks.p50Growth, 2);
    assert.equal(blocks.serviceCpuUs, 200);
    assert.equal(blocks.postgresCpuUs, 100);
    assert.equal(blocks.loadGeneratorCpuUs, 60);
    assert.equal(results.find((r) => r.scale === 'tiny')!.p50Growth, null);
    assert.equal(results[0]!.scale, 'small', 'the larger scale first');
  });

  it('takes the share of the PK ceiling from the ceiling measured right after each run, when there is one', () => {
    // the host slows down over the runs: 2000, 1000, 1500 req/s of the ceiling right after the endpoint's 1000, 500, 900
    const paired = [
      ...[1000, 500, 900].map((rps, i) => ({
        ...measurement('small', 'block', 8, i + 1, rps, 1),
        pairedPkCeilingRps: [2000, 1000, 1500][i],
      })),
      ...[2000, 1000, 1500].map((rps, i) => ({ ...measurement('small', 'ceiling-pk', 8, i + 1, rps, 1), paired: true })),
      ...[1, 2, 3].map((run) => measurement('small', 'ceiling-pk', 8, run, 4000, 1)),
    ];
    const rows = aggregate(paired, ['small']);
    const block = rows.find((r) => r.target === 'block')!;
    assert.equal(block.rps, 900);
    assert.equal(block.ofPkCeiling, 0.5, 'median of 0.5, 0.5 and 0.6, not 900 / 4000');
    const ceiling = rows.find((r) => r.target === 'ceiling-pk')!;
    assert.equal(ceiling.runs, 3, 'the paired measurements stay out of the ceiling row');
    assert.equal(ceiling.rps, 4000);
    assert.equal(blocksShare(), 0.6, 'without pairs, the ratio of the medians');
  });

  it("takes the growth with the dataset from each run's pair of measurements", () => {
    const rows = aggregate(
      [
        ...[10, 30, 50].map((p50, i) => measurement('small', 'block', 8, i + 1, 1000, p50)),
        ...[5, 60, 10].map((p50, i) => measurement('tiny', 'block', 8, i + 1, 1000, p50)),
      ],
      ['tiny', 'small'],
    );
    assert.equal(rows.find((r) => r.scale === 'small')!.p50Growth, 2, 'median of 2, 0.5 and 5, not 30 / 10');
  });

  const blocksShare = () => results.find((r) => r.scale === 'small' && r.target === 'blocks')!.ofPkCeiling;

  it('writes a Markdown table and a well-formed SVG chart', () => {
    const report: BenchReport = {
      startedAt: '2024-01-01T00:00:00.000Z',
      finishedAt: '2024-01-01T00:01:00.000Z',
      backend: 'postgres',
      options: { seed: 1, runs: 3, durationSeconds: 2, concurrency: [8], targets: ['blocks'] },
      machine: { cpus: 2, cpuModel: 'test', memoryGb: 1, node: 'v20' },
      datasets: ['tiny', 'small'].map((scale) => ({
        scale,
        totalRows: 10,
        rows: {},
        load: { seconds: 1, rowsPerSecond: 10, indexSeconds: 1, analyzeSeconds: 1, backend: 'postgres' },
      })),
      mixes: { small: { blocks: { latest: 3 } } },
      results,
      measurements,
    };
    const md = markdown(report);
    assert.match(
      md,
      /\| blocks \| 8 \| 1200 \| 4\.00 \| 12\.00 \| 20\.00 \| 400: 30 \| 0 \| 0 \| 30% \| 60% \| 200 \| 100 \| 60 \| 102 \| ×2\.00 \|/,
    );
    const svg = svgChart(report);
    assert.match(svg, /^<svg [^>]*>[\s\S]*<\/svg>\n$/);
    // background, two panels per scale (3 targets measured on small, 1 on tiny), one legend entry
    assert.equal((svg.match(/<rect /g) ?? []).length, 1 + 2 * 3 + 2 * 1 + 1);
  });
});

describe('bench compression report', () => {
  it('takes each round against its own identity measurement, and reports medians', () => {
    const sample = (encoding: 'identity' | 'gzip' | 'br', round: number, bytes: number, cpu: number, rps: number) => ({
      scale: 'small',
      target: 'accounts' as TargetName,
      encoding,
      concurrency: 8,
      round,
      rps,
      bytesPerResponse: bytes,
      serviceCpuUs: cpu,
    });
    const rows = aggregateCompression([
      sample('identity', 1, 10_000, 100, 1000),
      sample('gzip', 1, 2_000, 150, 800),
      sample('identity', 2, 10_000, 200, 500),
      sample('gzip', 2, 2_000, 260, 450),
    ]);
    const gzip = rows.find((r) => r.encoding === 'gzip')!;
    const identity = rows.find((r) => r.encoding === 'identity')!;
    assert.equal(gzip.rounds, 2);
    assert.equal(gzip.bytesRatio, 0.2);
    // rounds 1.5 and 1.3, not the ratio of medians (205 / 150)
    assert.ok(Math.abs(gzip.serviceCpuRatio - 1.4) < 1e-9);
    assert.ok(Math.abs(gzip.rpsRatio - 0.85) < 1e-9);
    assert.equal(gzip.serviceCpuUs, 205);
    assert.equal(identity.serviceCpuRatio, 1);
  });
});
