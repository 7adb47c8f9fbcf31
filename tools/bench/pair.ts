/**
 * `npm run bench -- pair --a URL --b URL`: the API on two existing databases that hold the same
 * ledger (`roundtrip --keep`: generated directly, and ingested), measured alternately. One URL mix,
 * drawn from A by the round trip's sampler, goes to three service children (bench/server.ts): one
 * on A, one on B, and a second one on A (A′), whose ratio to A is the noise of the measurement.
 * Each round measures the three at each concurrency, the order reversed every other round; the
 * report gives per concurrency the ratios B/A and A′/A of req/s, p50, p99 and the service's and
 * PostgreSQL's CPU per request, and says whether the tables were analysed (the databases are
 * measured as they are: the bench neither vacuums nor analyses them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Queryable } from '../../src/db/db.js';
import { openPostgres } from '../../src/db/postgres.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { Rng } from '../generate/random.js';
import { accountUrls, blockUrls, spread } from '../roundtrip/answers.js';
import { runLoad, runLoadWithCpu, settle } from './load.js';
import { optionsOrUsage } from './options.js';
import {
  PAIR_USAGE,
  type PairBenchOptions,
  type PairSample,
  pairRows,
  pairTable,
  parsePairBenchOptions,
  type Side,
  sidesInOrder,
} from './pairReport.js';
import { CEILING_PK_PATH } from './protocol.js';
import { type BenchService, serviceEnv, startService } from './service.js';
import { serverErrorCount, sumCounts } from './stats.js';
import type { MixRequest } from './targets.js';

const WARM_UP_PASSES = 2;
/** the tables the report shows the analysis state of: what the mix reads */
const WATCHED_TABLES = ['entity', 'entity_history', 'token_account', 'nft', 'transaction', 'crypto_transfer', 'record_file'];
/** settle on a primary-key read of the treasury (found or not, it is one index probe) */
const SETTLE_PATH = `${CEILING_PK_PATH}/2`;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const databaseName = (url: string) => new URL(url).pathname.slice(1);

/** What a sampled URL asks for, for the mix's description. */
export function kindOf(path: string): string {
  if (/^\/api\/v1\/blocks(\?|$)/.test(path)) return 'blocks list';
  if (path.startsWith('/api/v1/blocks/0x')) return 'block by hash';
  if (path.startsWith('/api/v1/blocks/')) return 'block by number';
  if (path.endsWith('/nfts')) return "account's NFTs";
  if (path.startsWith('/api/v1/accounts/0x')) return 'account by EVM address';
  if (path.includes('?timestamp=')) return 'account at a past time';
  return 'account by id (with its transactions)';
}

/** The round trip's URLs on A's rows: blocks and accounts spread over the ledger. */
async function drawUrls(db: Queryable, options: PairBenchOptions): Promise<string[]> {
  const accounts = await db.query<{ id: bigint; type: string; evm_address: Uint8Array | null }>(
    `select id, type, evm_address from entity where type = 'ACCOUNT' order by id`,
  );
  const history = await db.query<{ id: bigint; timestamp_range: string }>(
    `select id, timestamp_range::text as timestamp_range from entity_history where type = 'ACCOUNT' order by id, lower(timestamp_range)`,
  );
  const files = await db.query<{ index: bigint; hash: string }>('select index, hash from record_file order by index');
  const picked = spread(accounts, options.accounts);
  return [
    ...blockUrls(files, options.blocks, options.blocks),
    ...accountUrls(picked, spread(history, options.accounts), picked.length, () => ''),
  ].map((u) => u.url);
}

async function statusOf(baseUrl: string, path: string): Promise<number> {
  const response = await fetch(baseUrl + path);
  await response.arrayBuffer();
  return response.status;
}

interface ProbedMix {
  mix: MixRequest[];
  /** URLs whose status on B differs from A's */
  differing: string[];
  /** URLs A answered with a status no mix expects (a 5xx) */
  failing: string[];
}

/** Each URL once on A (its status is what every service must answer) and on B; the mix in a seeded order. */
async function probe(a: BenchService, b: BenchService, paths: readonly string[], seed: number): Promise<ProbedMix> {
  const mix: MixRequest[] = [];
  const differing: string[] = [];
  const failing: string[] = [];
  for (const path of paths) {
    const [onA, onB] = [await statusOf(a.baseUrl, path), await statusOf(b.baseUrl, path)];
    if (onA !== onB) differing.push(`${path}: A ${onA}, B ${onB}`);
    const expect = onA >= 200 && onA < 300 ? 'ok' : onA === 400 || onA === 404 ? onA : null;
    if (expect === null) failing.push(`${path}: ${onA}`);
    else mix.push({ path, expect, kind: kindOf(path) });
  }
  const rng = new Rng(seed, 7);
  for (let i = mix.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [mix[i], mix[j]] = [mix[j]!, mix[i]!];
  }
  return { mix, differing, failing };
}

export interface TableState {
  table: string;
  liveRows: number;
  deadRows: number;
  modifiedSinceAnalyze: number;
  lastAnalyze: string | null;
  lastAutoanalyze: string | null;
  lastAutovacuum: string | null;
}

/** Whether autovacuum runs, and what it (or anyone) did to the tables the mix reads. */
async function tableStates(db: Queryable): Promise<{ autovacuum: string; tables: TableState[] }> {
  const [setting] = await db.query<{ autovacuum: string }>(`select current_setting('autovacuum') as autovacuum`);
  const rows = await db.query<{
    table: string;
    live: bigint;
    dead: bigint;
    modified: bigint;
    last_analyze: Date | null;
    last_autoanalyze: Date | null;
    last_autovacuum: Date | null;
  }>(
    `select relname as table, n_live_tup as live, n_dead_tup as dead, n_mod_since_analyze as modified,
       last_analyze, last_autoanalyze, last_autovacuum
     from pg_stat_user_tables where schemaname = current_schema() and relname = any($1) order by relname`,
    [WATCHED_TABLES],
  );
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    autovacuum: setting!.autovacuum,
    tables: rows.map((r) => ({
      table: r.table,
      liveRows: Number(r.live),
      deadRows: Number(r.dead),
      modifiedSinceAnalyze: Number(r.modified),
      lastAnalyze: iso(r.last_analyze),
      lastAutoanalyze: iso(r.last_autoanalyze),
      lastAutovacuum: iso(r.last_autovacuum),
    })),
  };
}

type States = Record<'before' | 'after', Record<'A' | 'B', Awaited<ReturnType<typeof tableStates>>>>;

function statesTable(states: States, names: Record<'A' | 'B', string>): string {
  const lines = [
    '| database | table | live rows | dead rows | changed since analysed | analysed | autoanalysed | autovacuumed |',
    '|---|---|---:|---:|---:|---|---|---|',
  ];
  const when = (t: string | null) => t ?? 'never';
  const row = (side: 'A' | 'B', moment: string, t: TableState) =>
    `| ${side} ${names[side]}${moment} | ${t.table} | ${t.liveRows} | ${t.deadRows} | ${t.modifiedSinceAnalyze} | ${when(t.lastAnalyze)} | ${when(t.lastAutoanalyze)} | ${when(t.lastAutovacuum)} |`;
  const worked = (t: TableState) => [t.lastAnalyze, t.lastAutoanalyze, t.lastAutovacuum].join();
  for (const side of ['A', 'B'] as const) {
    for (const t of states.before[side].tables) lines.push(row(side, '', t));
    // a table analysed or vacuumed while the bench ran is shown again as it was after
    for (const t of states.after[side].tables) {
      const before = states.before[side].tables.find((b) => b.table === t.table);
      if (!before || worked(before) !== worked(t)) lines.push(row(side, ' (after the bench)', t));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Whether every watched table of a database has been analysed (by hand or by autovacuum). */
const analysed = (state: Awaited<ReturnType<typeof tableStates>>) =>
  state.tables.length > 0 && state.tables.every((t) => t.lastAnalyze !== null || t.lastAutoanalyze !== null);

export async function runPairBench(args: string[]): Promise<number> {
  const options = optionsOrUsage(() => parsePairBenchOptions(args), PAIR_USAGE);
  if (options === null) return 2;
  const startedAt = new Date();
  const load = loadavg()[0]!;
  const names = { A: databaseName(options.a), B: databaseName(options.b) };
  const open = (url: string) => openPostgres({ url, poolSize: 1, statementTimeoutMs: 0, connectionTimeoutMs: 5_000 });
  const dbs = { A: await open(options.a), B: await open(options.b) };
  const services: Partial<Record<Side, BenchService>> = {};
  const samples: PairSample[] = [];
  let probed: ProbedMix;
  const states = { before: {}, after: {} } as States;
  try {
    if (options.vacuumAnalyze) {
      for (const side of ['A', 'B'] as const) {
        const started = performance.now();
        await dbs[side].exec('vacuum (analyze)');
        log(`vacuum (analyze) of ${names[side]}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    }
    states.before = { A: await tableStates(dbs.A), B: await tableStates(dbs.B) };
    const paths = await drawUrls(dbs.A, options);
    const env = (url: string) =>
      serviceEnv({ DATABASE_URL: url, LQS_DB_DATADIR: undefined, LQS_BENCH_REQUIRE_DATASET: 'false' }, { pool: options.pool, workers: 1 });
    for (const [side, url] of [
      ['A', options.a],
      ['B', options.b],
      ["A'", options.a],
    ] as const)
      services[side] = await startService(env(url));
    probed = await probe(services.A!, services.B!, paths, options.seed);
    log(`${probed.mix.length} URLs drawn from ${names.A}; ${probed.differing.length} answered with another status by ${names.B}`);
    for (const line of probed.differing.slice(0, 10)) log(`  differs: ${line}`);
    if (probed.failing.length > 0) {
      for (const line of probed.failing.slice(0, 10)) log(`FAILED on A: ${line}`);
      return 1;
    }
    // two passes: in one, the service warmed up first was measured first and slowest in every smoke run
    for (let pass = 0; pass < (options.warmUpSeconds > 0 ? WARM_UP_PASSES : 0); pass++)
      for (const service of Object.values(services)) {
        await runLoad(service.baseUrl, probed.mix, 8, options.warmUpSeconds);
        await settle(service.baseUrl, SETTLE_PATH);
      }
    for (let round = 1; round <= options.rounds; round++)
      for (const concurrency of options.concurrency)
        for (const side of sidesInOrder(round)) {
          const service = services[side]!;
          // the same requests in the same order for the three services of a cell
          const { result, cpu } = await runLoadWithCpu(
            service,
            probed.mix,
            concurrency,
            options.durationSeconds,
            round * 997 + concurrency * 31,
          );
          await settle(service.baseUrl, SETTLE_PATH);
          const sample: PairSample = {
            round,
            concurrency,
            side,
            requests: result.requests,
            rps: result.rps,
            p50Ms: result.latencyMs.p50,
            p99Ms: result.latencyMs.p99,
            serviceCpuUs: cpu.service,
            postgresCpuUs: cpu.postgres ?? NaN,
            statuses: result.statuses,
            unexpected: result.unexpected,
            socketErrors: result.socketErrors,
          };
          samples.push(sample);
          log(
            `round ${round} c=${String(concurrency).padEnd(4)} ${side.padEnd(2)} ${Math.round(sample.rps).toString().padStart(6)} req/s  p50 ${sample.p50Ms.toFixed(2)} ms  p99 ${sample.p99Ms.toFixed(2)} ms  ` +
              `cpu/req service ${sample.serviceCpuUs.toFixed(0)} µs postgres ${Number.isFinite(sample.postgresCpuUs) ? sample.postgresCpuUs.toFixed(0) : '–'} µs  unexpected ${sample.unexpected}`,
          );
          for (const example of result.unexpectedExamples) log(`    unexpected: ${example}`);
        }
    states.after = { A: await tableStates(dbs.A), B: await tableStates(dbs.B) };
  } finally {
    for (const service of Object.values(services)) await service.stop();
    await dbs.A.close();
    await dbs.B.close();
  }

  const rows = pairRows(samples);
  const statuses = sumCounts(samples.map((s) => s.statuses));
  const socketErrors = sumCounts(samples.map((s) => s.socketErrors));
  const unexpected = samples.reduce((sum, s) => sum + s.unexpected, 0);
  const serverErrors = serverErrorCount(statuses);
  const kinds: Record<string, number> = {};
  for (const r of probed.mix) kinds[r.kind] = (kinds[r.kind] ?? 0) + 1;
  const analysis = (side: 'A' | 'B') =>
    `${side} ${names[side]}: ${analysed(states.before[side]) ? 'analysed' : 'NOT all analysed'} before, ${analysed(states.after[side]) ? 'analysed' : 'NOT all analysed'} after (autovacuum ${states.before[side].autovacuum})`;
  const markdown = [
    `# bench pair: A ${names.A}, B ${names.B}\n`,
    `${startedAt.toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, load average ${load.toFixed(1)} at the start, node ${process.version}; ` +
      `${options.rounds} round${options.rounds === 1 ? '' : 's'} × ${options.durationSeconds} s at concurrency ${options.concurrency.join(', ')}, pool ${options.pool}\n`,
    `URL mix: ${probed.mix.length} URLs drawn from A (${Object.entries(kinds)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}); ${probed.differing.length} answered with another status by B.\n`,
    `Tables: ${analysis('A')}; ${analysis('B')}. ${options.vacuumAnalyze ? 'Both vacuumed and analysed by the bench (--vacuum-analyze) before measuring, as below.' : 'Measured as found: the bench neither vacuums nor analyses.'}\n`,
    statesTable(states, names),
    `Ratios per round (B/A, and A'/A: a second service on A), their medians and ranges; B is within noise when its median lies in the band the A'/A ratios draw (as far from 1 as the farthest of them, either way):\n`,
    pairTable(rows),
    `Responses: ${Object.entries(statuses)
      .map(([code, n]) => `${code} ${n}`)
      .join(
        ', ',
      )}; unexpected statuses ${unexpected}, 5xx ${serverErrors}, socket errors ${Object.values(socketErrors).reduce((a, b) => a + b, 0)}.\n`,
  ].join('\n');
  const outDir = resolve(PROJECT_ROOT, options.outDir);
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, 'pair');
  const report = {
    startedAt: startedAt.toISOString(),
    loadAverage: load,
    options: { ...options, a: names.A, b: names.B },
    kinds,
    states,
    rows,
    samples,
  };
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  log(`\nresults: ${base}.json, .md\n`);
  process.stdout.write(markdown);
  if (serverErrors > 0 || Object.keys(socketErrors).length > 0) {
    log(`FAILED: ${serverErrors} responses 5xx, socket errors ${JSON.stringify(socketErrors)}`);
    return 1;
  }
  return 0;
}
