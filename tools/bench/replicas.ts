/**
 * A dedicated run: one service process on a primary alone, against two processes over
 * the primary and a streaming standby (and two processes on the primary alone, to tell the second
 * process from the standby), on private servers made here (initdb, pg_basebackup -R), measured in
 * turns within one run so that the ratios share the machine's state.
 *
 *   npm run build && node dist/tools/bench/replicas.js [--scale tiny|small] [--seconds N] [--rounds N] [--concurrency N]
 *
 * Prints one table (markdown) on stdout; progress on stderr.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../../src/db/postgres.js';
import { requireCompleteDataset } from '../generate/dataset.js';
import { createPrivatePostgres, createStandby, type PrivatePostgres } from '../../test/support/privatePostgres.js';
import { runLoad, type LoadResult } from './load.js';
import { buildMixes } from './mixes.js';
import { sampleDataset } from './sample.js';
import { median } from './stats.js';
import { serviceEnv, startService, type BenchService } from './service.js';
import type { MixRequest, TargetName } from './targets.js';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    pool: { type: 'string', default: '4' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const pool = Number(values.pool);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** the replica-served reads, and the block lookup (kept on the primary by db.primaryReads) */
const TARGETS: TargetName[] = ['accounts', 'account-without-transactions', 'account-nfts', 'contract-result', 'block'];

async function until(what: string, test: () => Promise<boolean>, withinMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!(await test().catch(() => false))) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main(): Promise<void> {
  let primary: PrivatePostgres | undefined;
  let standby: PrivatePostgres | undefined;
  const services: BenchService[] = [];
  try {
    log('private primary (initdb)');
    primary = await createPrivatePostgres();
    const admin = new pg.Client({ connectionString: primary.adminUrl });
    await admin.connect();
    await admin.query('create database lqs');
    await admin.end();
    const primaryUrl = primary.adminUrl.replace(/\/postgres$/, '/lqs');
    log(`generate --scale ${values.scale} into it`);
    const main = fileURLToPath(new URL('../main.js', import.meta.url));
    execFileSync(process.execPath, [main, 'generate', '--scale', values.scale!, '--no-progress'], {
      env: { ...process.env, DATABASE_URL: primaryUrl },
      stdio: ['ignore', 2, 2],
    });
    log('standby (pg_basebackup -R -X stream)');
    standby = await createStandby(primary);
    const standbyUrl = standby.adminUrl.replace(/\/postgres$/, '/lqs');
    await until('the standby serves the dataset', async () => {
      const c = new pg.Client({ connectionString: standbyUrl });
      await c.connect();
      try {
        return (await c.query('select 1 from lqs_dataset limit 1')).rowCount === 1;
      } finally {
        await c.end();
      }
    });

    const owner = await openPostgres({ url: primaryUrl, poolSize: 2, statementTimeoutMs: 60_000, connectionTimeoutMs: 5_000 });
    const sample = await sampleDataset(owner, await requireCompleteDataset(owner));
    await owner.close();
    const mixes = buildMixes(sample, 1);
    // one mix interleaving the targets' requests
    const mix: MixRequest[] = [];
    const longest = Math.max(...TARGETS.map((t) => mixes[t].length));
    for (let i = 0; i < longest; i++) for (const t of TARGETS) if (mixes[t][i]) mix.push(mixes[t][i]!);

    const base = { DATABASE_URL: primaryUrl, LQS_DB_MIGRATE: 'false', LQS_ADMIN_ENABLED: 'false' };
    const setups: { name: string; env: Record<string, string | undefined>; workers: number }[] = [
      { name: '1 process, primary', env: base, workers: 1 },
      { name: '2 processes, primary', env: base, workers: 2 },
      { name: '2 processes, primary + standby', env: { ...base, LQS_DB_REPLICAS: standbyUrl }, workers: 2 },
    ];
    const results = new Map<string, LoadResult[]>(setups.map((s) => [s.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const setup of setups) {
        const service = await startService(serviceEnv(setup.env, { pool, workers: setup.workers }));
        services.push(service);
        await runLoad(service.baseUrl, mix, 8, 2); // warm-up: connections, prepared statements, JIT
        const result = await runLoad(service.baseUrl, mix, concurrency, seconds, round * 997);
        results.get(setup.name)!.push(result);
        log(
          `round ${round + 1} ${setup.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.latencyMs.p50.toFixed(1)} ms, p99 ${result.latencyMs.p99.toFixed(1)} ms, statuses ${JSON.stringify(result.statuses)}, unexpected ${result.unexpected}`,
        );
        await service.stop();
        services.pop();
      }
    }
    const baseline = median(results.get(setups[0]!.name)!.map((r) => r.rps));
    const lines = [
      `${availableParallelism()} cores; ${values.scale} dataset; ${concurrency} connections; pool ${pool} per process (per pool); ${rounds} rounds of ${seconds} s each, setups in turn; medians`,
      '',
      '| setup | req/s | ratio | p50 ms | p99 ms | unexpected statuses | socket errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const setup of setups) {
      const runs = results.get(setup.name)!;
      const rps = median(runs.map((r) => r.rps));
      // the mixes hold requests answered 400 or 404 on purpose: what counts is a status the mix does not expect
      const unexpected = runs.reduce((n, r) => n + r.unexpected, 0);
      const socketErrors = runs.reduce((n, r) => n + Object.values(r.socketErrors).reduce((a, b) => a + b, 0), 0);
      lines.push(
        `| ${setup.name} | ${rps.toFixed(0)} | ${(rps / baseline).toFixed(2)} | ${median(runs.map((r) => r.latencyMs.p50)).toFixed(1)} | ${median(runs.map((r) => r.latencyMs.p99)).toFixed(1)} | ${unexpected} | ${socketErrors} |`,
      );
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const s of services) await s.stop().catch(() => undefined);
    standby?.destroy();
    primary?.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
