/** Command-line options of `npm run bench`, with defaults that keep `--scale small` within CI time. */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_ADMIN_URL, schemaKindOf, type SchemaKind } from '../db/scratch.js';
import { isScaleName, smallerScale, type ScaleName } from '../generate/scales.js';
import { parseSeed } from '../generate/cli.js';
import { TARGET_NAMES, type TargetName } from './targets.js';
import { parseP99Budgets, type P99Budget } from './budgets.js';

export const USAGE = `usage: npm run bench -- [--scale small|medium|large] [options]
       npm run bench -- ingest [--size ci|large] [options]   (ingestion: bench ingest --help)
       npm run bench -- pair --a URL --b URL [options]       (two databases of one ledger: bench pair --help)

  --scale S           the larger dataset (default small); the run compares it with the next smaller one
  --compare S|none    the smaller dataset (default: one step below --scale)
  --backend B         postgres (default) or pglite
  --schema K          project (default): the project's migrations; mirror: the datasets' databases are
                      created from the mirror node's schema (../shared/mirror-schema) and served by a
                      SELECT-only role with migrations off, as an operator runs it (postgres only)
  --seed N            dataset seed (default 1)
  --runs N            repeated runs, medians reported (default 1 for tiny/small, 3 above)
  --duration S        seconds per measurement (default 2 for tiny/small, 5 above)
  --concurrency LIST  connections, comma-separated (default 1,8,32,128)
  --targets LIST      endpoints to measure (default all): ${TARGET_NAMES.join(', ')}
  --pool N            connections in the service's pool (default 2 × this machine's cores: the
                      bench's PostgreSQL runs here; the service's own default, 10, suits a database host)
  --workers N         service processes sharing the port (default 1; 0 = one per core)
  --hot-concurrency L connections for the hot mixes on the larger dataset (default 32; none: skip them)
  --redis URL|none    Redis for the hot mixes' shared cache (default LQS_BENCH_REDIS_URL or
                      redis://127.0.0.1:6379; skipped with a note when it does not answer)
  --p99-budget LIST   target@concurrency=ms, comma-separated (e.g. accounts@32=250): the bench fails when
                      that p99 on the larger dataset (median over runs) is above the bound
  --fresh             regenerate the datasets even when complete ones exist
  --out DIR           where results go (default tools/bench/results)

PostgreSQL datasets live in databases lqs_bench_<scale>_s<seed> (lqs_bench_mirror_<scale>_s<seed> with
--schema mirror, read by the role lqs_bench_reader) on LQS_BENCH_ADMIN_URL
(default LQS_TEST_ADMIN_URL or ${DEFAULT_ADMIN_URL}); PGlite ones in data/bench/<scale>-s<seed>.
They are kept for the next run; drop them with \`dropdb\` or \`rm -rf data/bench\`.`;

export interface BenchOptions {
  scales: ScaleName[];
  backend: 'postgres' | 'pglite';
  /** the schema of the datasets' databases: the project's migrations, or the mirror node's */
  schema: SchemaKind;
  seed: number;
  runs: number;
  durationSeconds: number;
  concurrency: number[];
  targets: TargetName[];
  /** connections in the service's pool (each worker's) */
  pool: number;
  /** service processes (a cluster of workers when above 1) */
  workers: number;
  /** concurrencies of the hot mixes (empty: none) */
  hotConcurrency: number[];
  /** Redis of the shared-cache configuration; empty: not measured */
  redisUrl: string;
  /** p99 bounds the run must keep on its larger dataset */
  p99Budgets: P99Budget[];
  fresh: boolean;
  outDir: string;
  adminUrl: string;
}

export class BenchUsageError extends Error {}

/** A mistake in the command line: one of the bench's own checks, or node:util's parseArgs. */
export function isUsageError(err: unknown): boolean {
  return err instanceof BenchUsageError || (err as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true;
}

/**
 * The options `parse` reads, or null after writing the mistake (if any: `--help` has none) and
 * `usage` to stderr, for the command to exit 2; any other error is thrown on.
 */
export function optionsOrUsage<T>(parse: () => T, usage: string): T | null {
  try {
    return parse();
  } catch (err) {
    if (!isUsageError(err)) throw err;
    const message = (err as Error).message;
    process.stderr.write(`${message ? `${message}\n\n` : ''}${usage}\n`);
    return null;
  }
}

export function positiveInt(text: string, what: string): number {
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new BenchUsageError(`${what}: a positive integer, not ${text}`);
  return Number(text);
}

export function parseBenchOptions(args: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: 'string', default: 'small' },
      compare: { type: 'string' },
      backend: { type: 'string', default: 'postgres' },
      schema: { type: 'string', default: 'project' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string', default: '1,8,32,128' },
      targets: { type: 'string' },
      pool: { type: 'string' },
      workers: { type: 'string', default: '1' },
      'hot-concurrency': { type: 'string', default: '32' },
      redis: { type: 'string' },
      'p99-budget': { type: 'string' },
      fresh: { type: 'boolean', default: false },
      out: { type: 'string', default: 'tools/bench/results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) throw new BenchUsageError('');
  const scale = values.scale!;
  if (!isScaleName(scale)) throw new BenchUsageError(`--scale: tiny, small, medium or large, not ${scale}`);
  const compare = values.compare ?? smallerScale(scale) ?? 'none';
  if (compare !== 'none' && !isScaleName(compare)) throw new BenchUsageError(`--compare: a scale or none, not ${compare}`);
  if (values.backend !== 'postgres' && values.backend !== 'pglite') throw new BenchUsageError('--backend: postgres or pglite');
  let schema: SchemaKind;
  try {
    schema = schemaKindOf(values.schema);
  } catch (err) {
    throw new BenchUsageError(`--schema: ${(err as Error).message}`);
  }
  if (schema === 'mirror' && values.backend !== 'postgres') throw new BenchUsageError('--schema mirror needs --backend postgres');
  const quick = scale === 'tiny' || scale === 'small';
  const targets = values.targets ? values.targets.split(',').map((t) => t.trim()) : [...TARGET_NAMES];
  for (const t of targets) if (!(TARGET_NAMES as readonly string[]).includes(t)) throw new BenchUsageError(`--targets: unknown ${t}`);
  let p99Budgets: P99Budget[] = [];
  try {
    p99Budgets = values['p99-budget'] ? parseP99Budgets(values['p99-budget']) : [];
  } catch (err) {
    throw new BenchUsageError(`--p99-budget: ${(err as Error).message}`);
  }
  return {
    scales: compare === 'none' || compare === scale ? [scale] : [compare as ScaleName, scale],
    backend: values.backend,
    schema,
    seed: parseSeed(values.seed),
    runs: values.runs ? positiveInt(values.runs, '--runs') : quick ? 1 : 3,
    durationSeconds: values.duration ? positiveInt(values.duration, '--duration') : quick ? 2 : 5,
    concurrency: values.concurrency!.split(',').map((c) => positiveInt(c.trim(), '--concurrency')),
    targets: targets as TargetName[],
    pool: values.pool ? positiveInt(values.pool, '--pool') : 2 * availableParallelism(),
    workers: values.workers === '0' ? availableParallelism() : positiveInt(values.workers!, '--workers'),
    hotConcurrency:
      values['hot-concurrency'] === 'none'
        ? []
        : values['hot-concurrency']!.split(',').map((c) => positiveInt(c.trim(), '--hot-concurrency')),
    redisUrl:
      (values.redis ?? env.LQS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379') === 'none'
        ? ''
        : (values.redis ?? env.LQS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'),
    p99Budgets,
    fresh: values.fresh!,
    outDir: values.out!,
    adminUrl: env.LQS_BENCH_ADMIN_URL ?? env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL,
  };
}
