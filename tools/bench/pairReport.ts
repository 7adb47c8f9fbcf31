/**
 * `bench pair`'s options and arithmetic: per round the ratios B/A (the database compared) and A'/A
 * (a second service on database A: the same data measured twice), their medians and ranges, and
 * whether B/A's median lies within the noise band that A'/A draws.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parseSeed } from '../generate/cli.js';
import { BenchUsageError, positiveInt } from './options.js';
import { median } from './stats.js';

export const PAIR_USAGE = `usage: npm run bench -- pair --a URL --b URL [options]

  --a URL             the reference database, e.g. the generated one that \`roundtrip --keep\` leaves
                      (PREFIX_expected); the URL mix is drawn from it
  --b URL             the database compared with it, e.g. the same ledger ingested (PREFIX_ingested)
  --rounds N          rounds (default 5); each measures A, B and A' at every concurrency, the order
                      reversed every other round (A B A', then A' B A)
  --duration S        seconds per measurement (default 5)
  --warm-up S         seconds of load on each service before measuring, twice in turn (default 2;
                      0: none, for a check that the command works rather than a measurement)
  --concurrency LIST  connections, comma-separated (default 1,8,32)
  --accounts N        accounts drawn into the URL mix (default 300), each by id, its NFTs, by EVM
                      address when it has one, and as of a past time when it has a history
  --blocks N          blocks drawn into the URL mix by number, also by hash (default 40)
  --pool N            connections in each service's pool (default 2 × this machine's cores)
  --vacuum-analyze    VACUUM (ANALYZE) both databases before measuring, as autovacuum would have
                      done by then (where it runs): the report says so; by default they are measured as found
  --seed N            the order of the URL mix (default 1)
  --out DIR           where results go (default tools/bench/results): pair.json, pair.md

A' is a second service on database A, measured like B: its ratio to A is the noise of the
measurement itself, and B is within noise when the median of B/A lies in that band. Unless
--vacuum-analyze, the databases are measured as they are, neither vacuumed nor analysed by the
bench; the report says whether they were analysed (by hand or by autovacuum) and their dead rows.`;

export interface PairBenchOptions {
  a: string;
  b: string;
  rounds: number;
  durationSeconds: number;
  /** seconds of each service's warm-up pass (0: none) */
  warmUpSeconds: number;
  concurrency: number[];
  accounts: number;
  blocks: number;
  pool: number;
  /** VACUUM (ANALYZE) both databases before measuring */
  vacuumAnalyze: boolean;
  seed: number;
  outDir: string;
}

function databaseUrl(text: string | undefined, option: string): string {
  if (text === undefined) throw new BenchUsageError(`${option}: a PostgreSQL URL is required`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BenchUsageError(`${option}: a PostgreSQL URL (postgres://…/database), not ${text}`);
  }
  if ((url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.pathname.length < 2)
    throw new BenchUsageError(`${option}: a PostgreSQL URL (postgres://…/database), not ${text}`);
  return text;
}

function seedOf(text: string | undefined): number {
  try {
    return parseSeed(text);
  } catch (err) {
    throw new BenchUsageError((err as Error).message);
  }
}

export function parsePairBenchOptions(args: string[]): PairBenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '5' },
      'warm-up': { type: 'string', default: '2' },
      concurrency: { type: 'string', default: '1,8,32' },
      accounts: { type: 'string', default: '300' },
      blocks: { type: 'string', default: '40' },
      pool: { type: 'string' },
      'vacuum-analyze': { type: 'boolean', default: false },
      seed: { type: 'string' },
      out: { type: 'string', default: 'tools/bench/results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) throw new BenchUsageError('');
  const a = databaseUrl(values.a, '--a');
  const b = databaseUrl(values.b, '--b');
  if (a === b) throw new BenchUsageError('--a and --b: two databases (A against itself is measured anyway, as A′)');
  return {
    a,
    b,
    rounds: positiveInt(values.rounds!, '--rounds'),
    durationSeconds: positiveInt(values.duration!, '--duration'),
    warmUpSeconds: values['warm-up'] === '0' ? 0 : positiveInt(values['warm-up']!, '--warm-up'),
    concurrency: values.concurrency!.split(',').map((c) => positiveInt(c.trim(), '--concurrency')),
    accounts: positiveInt(values.accounts!, '--accounts'),
    blocks: positiveInt(values.blocks!, '--blocks'),
    pool: values.pool ? positiveInt(values.pool, '--pool') : 2 * availableParallelism(),
    vacuumAnalyze: values['vacuum-analyze']!,
    seed: seedOf(values.seed),
    outDir: values.out!,
  };
}

/** The three services: A, B, and A′ (a second service on database A). */
export type Side = 'A' | 'B' | "A'";

/** Round `round`'s order at each concurrency: B always between the two services on A, which swap every round. */
export function sidesInOrder(round: number): Side[] {
  return round % 2 === 1 ? ['A', 'B', "A'"] : ["A'", 'B', 'A'];
}

export const PAIR_METRICS = {
  rps: 'req/s',
  p50Ms: 'p50 ms',
  p99Ms: 'p99 ms',
  serviceCpuUs: 'service CPU µs/req',
  postgresCpuUs: 'PostgreSQL CPU µs/req',
} as const;
export type PairMetric = keyof typeof PAIR_METRICS;

/** One measurement of one service. */
export interface PairSample extends Record<PairMetric, number> {
  round: number;
  concurrency: number;
  side: Side;
  requests: number;
  statuses: Record<string, number>;
  unexpected: number;
  socketErrors: Record<string, number>;
}

export interface RatioSummary {
  /** per round, in round order */
  ratios: number[];
  median: number;
  min: number;
  max: number;
}

export interface PairRow {
  concurrency: number;
  metric: PairMetric;
  /** median of A's own figure over the rounds */
  a: number;
  b: RatioSummary;
  noise: RatioSummary;
  /** [1/m, m], m the largest deviation of A′/A from 1 either way */
  band: [number, number];
  /** B/A's median lies within the band */
  within: boolean;
}

export function summarizeRatios(ratios: readonly number[]): RatioSummary {
  const finite = ratios.filter((r) => Number.isFinite(r));
  return {
    ratios: [...ratios],
    median: median(finite),
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
  };
}

/**
 * The band the same database shows against itself: as far from 1 as the farthest A′/A ratio, on
 * either side (a ratio of 1.05 and one of 1/1.05 are the same deviation). [1, 1] when there is none.
 */
export function noiseBand(noiseRatios: readonly number[]): [number, number] {
  const deviations = noiseRatios.filter((r) => Number.isFinite(r) && r > 0).map((r) => Math.max(r, 1 / r));
  const m = deviations.length ? Math.max(...deviations) : 1;
  return [1 / m, m];
}

export function withinBand(value: number, [lo, hi]: readonly [number, number]): boolean {
  // the epsilon keeps a ratio equal to the band's edge, computed another way, inside it
  return Number.isFinite(value) && value >= lo - 1e-9 && value <= hi + 1e-9;
}

/** Per concurrency and metric: the rounds' ratios B/A and A′/A, the band and the verdict. */
export function pairRows(samples: readonly PairSample[]): PairRow[] {
  const rows: PairRow[] = [];
  const concurrencies = [...new Set(samples.map((s) => s.concurrency))];
  for (const concurrency of concurrencies) {
    const rounds = [...new Set(samples.filter((s) => s.concurrency === concurrency).map((s) => s.round))].sort((x, y) => x - y);
    const of = (round: number, side: Side) => samples.find((s) => s.concurrency === concurrency && s.round === round && s.side === side);
    for (const metric of Object.keys(PAIR_METRICS) as PairMetric[]) {
      const ratio = (side: Side) =>
        rounds.map((round) => {
          const [a, other] = [of(round, 'A'), of(round, side)];
          return a && other ? other[metric] / a[metric] : NaN;
        });
      const b = summarizeRatios(ratio('B'));
      const noise = summarizeRatios(ratio("A'"));
      const band = noiseBand(noise.ratios);
      const aValues = rounds.map((round) => of(round, 'A')?.[metric] ?? NaN);
      rows.push({ concurrency, metric, a: median(aValues), b, noise, band, within: withinBand(b.median, band) });
    }
  }
  return rows;
}

const ratio = (r: number) => (Number.isFinite(r) ? r.toFixed(3) : '–');
const figure = (v: number) => (!Number.isFinite(v) ? '–' : v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2));
const range = (s: RatioSummary) => `${ratio(s.min)}–${ratio(s.max)}`;

/** The table: one line per concurrency and metric. */
export function pairTable(rows: readonly PairRow[]): string {
  const lines = [
    "| c | metric | A (median) | B/A median | B/A range | A'/A median | A'/A range | noise band | B within noise |",
    '|---:|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.concurrency} | ${PAIR_METRICS[r.metric]} | ${figure(r.a)} | ${ratio(r.b.median)} | ${range(r.b)} | ${ratio(r.noise.median)} | ${range(r.noise)} | ${ratio(r.band[0])}–${ratio(r.band[1])} | ${Number.isFinite(r.b.median) ? (r.within ? 'yes' : 'no') : '–'} |`,
    );
  return `${lines.join('\n')}\n`;
}
