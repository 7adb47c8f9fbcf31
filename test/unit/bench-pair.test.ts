import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BenchUsageError } from '../../tools/bench/options.js';
import { kindOf } from '../../tools/bench/pair.js';
import {
  noiseBand,
  type PairSample,
  pairRows,
  pairTable,
  parsePairBenchOptions,
  type Side,
  sidesInOrder,
  summarizeRatios,
  withinBand,
} from '../../tools/bench/pairReport.js';
import { blockUrls, spread } from '../../tools/roundtrip/answers.js';

const A = 'postgres://postgres@127.0.0.1:5432/h_x_expected';
const B = 'postgres://postgres@127.0.0.1:5432/h_x_ingested';

describe('bench pair options', () => {
  it('needs --a and --b; five rounds of 5 s at 1, 8 and 32 connections by default', () => {
    const options = parsePairBenchOptions(['--a', A, '--b', B]);
    assert.deepEqual(
      { ...options, pool: 0 },
      {
        a: A,
        b: B,
        rounds: 5,
        durationSeconds: 5,
        warmUpSeconds: 2,
        concurrency: [1, 8, 32],
        accounts: 300,
        blocks: 40,
        pool: 0,
        vacuumAnalyze: false,
        seed: 1,
        outDir: 'tools/bench/results',
      },
    );
    assert.ok(options.pool >= 2);
    const custom = parsePairBenchOptions([
      '--a',
      A,
      '--b',
      B,
      '--rounds',
      '1',
      '--duration',
      '2',
      '--warm-up',
      '0',
      '--concurrency',
      '8, 64',
      '--accounts',
      '10',
      '--blocks',
      '3',
      '--pool',
      '6',
      '--vacuum-analyze',
      '--seed',
      '7',
      '--out',
      '/tmp/p',
    ]);
    assert.deepEqual(
      [
        custom.rounds,
        custom.durationSeconds,
        custom.warmUpSeconds,
        custom.concurrency,
        custom.accounts,
        custom.blocks,
        custom.pool,
        custom.vacuumAnalyze,
        custom.seed,
        custom.outDir,
      ],
      [1, 2, 0, [8, 64], 10, 3, 6, true, 7, '/tmp/p'],
    );
  });

  it('refuses a missing or non-PostgreSQL URL, the same database twice, counts that are not positive, and --help', () => {
    for (const args of [
      ['--b', B],
      ['--a', A],
      ['--a', 'mysql://h/db', '--b', B],
      ['--a', 'postgres://h', '--b', B],
      ['--a', 'not a url', '--b', B],
      ['--a', A, '--b', A],
      ['--a', A, '--b', B, '--rounds', '0'],
      ['--a', A, '--b', B, '--warm-up', 'x'],
      ['--a', A, '--b', B, '--concurrency', '8,x'],
      ['--a', A, '--b', B, '--seed', 'x'],
      ['--help'],
    ])
      assert.throws(() => parsePairBenchOptions(args), BenchUsageError, args.join(' '));
    assert.throws(() => parsePairBenchOptions(['--a', A, '--b', B, '--colour']), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });
});

function sample(round: number, concurrency: number, side: Side, rps: number, p50Ms = 10): PairSample {
  return {
    round,
    concurrency,
    side,
    requests: rps,
    rps,
    p50Ms,
    p99Ms: 4 * p50Ms,
    serviceCpuUs: 1000,
    postgresCpuUs: NaN,
    statuses: { 200: rps },
    unexpected: 0,
    socketErrors: {},
  };
}

describe('bench pair arithmetic', () => {
  it('B sits between the two services on A, which swap every round', () => {
    assert.deepEqual(sidesInOrder(1), ['A', 'B', "A'"]);
    assert.deepEqual(sidesInOrder(2), ["A'", 'B', 'A']);
    assert.deepEqual(sidesInOrder(3), sidesInOrder(1));
  });

  it('the noise band reaches as far from 1 as the farthest A′/A ratio, either way', () => {
    const [lo, hi] = noiseBand([1.02, 0.8, 1.1]);
    assert.equal(hi, 1.25);
    assert.equal(lo, 0.8);
    assert.deepEqual(noiseBand([1.05]), [1 / 1.05, 1.05]);
    assert.deepEqual(noiseBand([]), [1, 1]);
    assert.deepEqual(noiseBand([NaN, 0]), [1, 1]);
    assert.ok(withinBand(1.25, [0.8, 1.25]));
    assert.ok(withinBand(0.8, [0.8, 1.25]));
    assert.ok(!withinBand(1.26, [0.8, 1.25]));
    assert.ok(!withinBand(NaN, [0.8, 1.25]));
  });

  it('summarises ratios by median and range, leaving out those that could not be taken', () => {
    assert.deepEqual(summarizeRatios([1.2, NaN, 0.9, 1]), { ratios: [1.2, NaN, 0.9, 1], median: 1, min: 0.9, max: 1.2 });
    const none = summarizeRatios([NaN]);
    assert.ok(Number.isNaN(none.median) && Number.isNaN(none.min) && Number.isNaN(none.max));
  });

  it('takes per round and concurrency the ratios B/A and A′/A of every metric, and judges B against the band', () => {
    const samples = [
      // c=8: B 10 % slower in req/s each round, A′ within ±5 %: outside the noise
      sample(1, 8, 'A', 1000),
      sample(1, 8, 'B', 900),
      sample(1, 8, "A'", 1050),
      sample(2, 8, "A'", 960),
      sample(2, 8, 'B', 880),
      sample(2, 8, 'A', 1000),
      sample(3, 8, 'A', 1000),
      sample(3, 8, 'B', 920),
      sample(3, 8, "A'", 1000),
      // c=1: B inside A′'s spread
      sample(1, 1, 'A', 100, 2),
      sample(1, 1, 'B', 103, 2),
      sample(1, 1, "A'", 95, 2.2),
    ];
    const rows = pairRows(samples);
    assert.deepEqual(
      rows.map((r) => `${r.concurrency} ${r.metric}`),
      [
        '8 rps',
        '8 p50Ms',
        '8 p99Ms',
        '8 serviceCpuUs',
        '8 postgresCpuUs',
        '1 rps',
        '1 p50Ms',
        '1 p99Ms',
        '1 serviceCpuUs',
        '1 postgresCpuUs',
      ],
    );
    const rps8 = rows[0]!;
    assert.deepEqual(rps8.b.ratios, [0.9, 0.88, 0.92]);
    assert.equal(rps8.b.median, 0.9);
    assert.deepEqual([rps8.b.min, rps8.b.max], [0.88, 0.92]);
    assert.deepEqual(rps8.noise.ratios, [1.05, 0.96, 1]);
    assert.equal(rps8.a, 1000);
    assert.deepEqual(rps8.band, [1 / 1.05, 1.05]);
    assert.equal(rps8.within, false);
    const rps1 = rows[5]!;
    assert.equal(rps1.b.median, 1.03);
    assert.equal(rps1.within, true);
    const p50At1 = rows[6]!;
    assert.equal(p50At1.noise.median, 1.1);
    assert.ok(p50At1.within);
    // no PostgreSQL reading (another host): no ratio, no verdict
    assert.ok(Number.isNaN(rows[4]!.b.median));
    assert.equal(rows[4]!.within, false);
    const table = pairTable(rows);
    assert.match(table, /\n\| 8 \| req\/s \| 1,000 \| 0\.900 \| 0\.880–0\.920 \| 1\.000 \| 0\.960–1\.050 \| 0\.952–1\.050 \| no \|\n/);
    assert.match(table, /\n\| 1 \| req\/s \| 100 \| 1\.030 \| 1\.030–1\.030 \| 0\.950 \| 0\.950–0\.950 \| 0\.950–1\.053 \| yes \|\n/);
    assert.match(table, /\n\| 8 \| PostgreSQL CPU µs\/req \| – \| – \| –––? \| – \| –––? \| 1\.000–1\.000 \| – \|\n/);
  });
});

describe('bench pair URL mix', () => {
  it('names what each of the round trip sampler URLs asks for', () => {
    assert.equal(kindOf('/api/v1/blocks'), 'blocks list');
    assert.equal(kindOf('/api/v1/blocks?order=asc&limit=100'), 'blocks list');
    assert.equal(kindOf('/api/v1/blocks/0xabc'), 'block by hash');
    assert.equal(kindOf('/api/v1/blocks/120'), 'block by number');
    assert.equal(kindOf('/api/v1/accounts/0.0.1001/nfts'), "account's NFTs");
    assert.equal(kindOf('/api/v1/accounts/0x00ff'), 'account by EVM address');
    assert.equal(kindOf('/api/v1/accounts/0.0.1001?timestamp=1767225600.000000001'), 'account at a past time');
    assert.equal(kindOf('/api/v1/accounts/0.0.1001'), 'account by id (with its transactions)');
  });

  it('spreads picks evenly from the first to the last; the round trip keeps its three blocks', () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    assert.deepEqual(spread(items, 4), [0, 3, 6, 9]);
    assert.deepEqual(spread(items, 1), [9]);
    assert.deepEqual(spread(items.slice(0, 2), 3), [0, 1]);
    const files = items.map((i) => ({ index: BigInt(100 + i), hash: `h${i}` }));
    assert.deepEqual(
      blockUrls(files).map((u) => u.url),
      [
        '/api/v1/blocks',
        '/api/v1/blocks?order=asc&limit=100',
        '/api/v1/blocks/100',
        '/api/v1/blocks/105',
        '/api/v1/blocks/109',
        '/api/v1/blocks/0xh9',
      ],
    );
    assert.deepEqual(
      blockUrls(files, 3, 3)
        .map((u) => u.url)
        .filter((u) => u.includes('0x')),
      ['/api/v1/blocks/0xh0', '/api/v1/blocks/0xh5', '/api/v1/blocks/0xh9'],
    );
  });
});
