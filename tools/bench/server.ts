/**
 * The service under benchmark, run as a child of the bench (forked with IPC): the real app from
 * buildApp over the configured database, plus two ceiling routes that exist only in this process
 * (never in `serve`): a trivial JSON reply, and one primary-key SELECT through the same pool.
 *
 * Messages: → {type:'ready', port} once listening; ← {type:'rss-start'} / {type:'rss-stop'}
 * → {type:'rss', peakBytes}; ← {type:'stop'} closes everything and exits.
 *
 * With LQS_BENCH_WORKERS above 1 (`--workers`) this process supervises that many cluster workers
 * (the service's supervisor, src/cluster/supervisor.ts, as `server.workers` runs it), each serving
 * the same app on the shared port, and answers the messages for all of them. A worker that dies is
 * logged and not replaced, so that the measurement shows it.
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { configWith, loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { openDatabase } from '../../src/db/open.js';
import { findMissingOptionalIndexes } from '../../src/db/optionalIndexes.js';
import { PIPELINE_STEPS, type PipelineStep } from '../../src/http/pipeline.js';
import { requireCompleteDataset } from '../generate/dataset.js';
import { createLogger } from '../../src/logger.js';
import { createSupervisor } from '../../src/cluster/supervisor.js';
import { CEILING_JSON_PATH, CEILING_PK_PATH, type CacheCounters, type ControlMessage, type ServerMessage } from './protocol.js';

function registerCeilings(app: FastifyInstance, db: Db): void {
  app.get(CEILING_JSON_PATH, async () => ({ status: 'ok', service: 'ledger-query-service' }));
  app.get<{ Params: { id: string } }>(`${CEILING_PK_PATH}/:id`, async (request, reply) => {
    if (!/^\d{1,18}$/.test(request.params.id))
      return reply.code(400).send({ _status: { messages: [{ message: 'Invalid parameter: id' }] } });
    const rows = await db.query<{ id: bigint; balance: bigint | null }>('select id, balance from entity where id = $1', [
      BigInt(request.params.id),
    ]);
    if (rows.length === 0) return reply.code(404).send({ _status: { messages: [{ message: 'Not found' }] } });
    return { id: String(rows[0]!.id), balance: rows[0]!.balance === null ? null : String(rows[0]!.balance) };
  });
}

/** Resident memory of a process in bytes (0 when it is gone). */
function rssOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0;
  }
}

/** Peak resident memory of the service: this process, or the sum over its workers. */
class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private peak = 0;

  constructor(private readonly current: () => number = () => process.memoryUsage.rss()) {}

  start(): void {
    this.peak = this.current();
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, this.current());
    }, 100);
  }

  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return Math.max(this.peak, this.current());
  }
}

const send = (message: ServerMessage) => process.send?.(message);

const NO_COUNTERS: CacheCounters = { hits: 0, redisHits: 0, misses: 0, redisErrors: 0, entries: 0, bytes: 0 };

function countersOf(app: FastifyInstance): CacheCounters {
  const s = app.responseCache?.snapshot();
  return s
    ? { hits: s.hits, redisHits: s.redisHits, misses: s.misses, redisErrors: s.redisErrors, entries: s.entries, bytes: s.bytes }
    : NO_COUNTERS;
}

/** Asks every worker for its cache counters and sums them. */
async function workersCounters(): Promise<CacheCounters> {
  const workers = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
  const replies = await Promise.all(
    workers.map(
      (w) =>
        new Promise<CacheCounters>((resolve) => {
          const timer = setTimeout(() => done(NO_COUNTERS), 5_000);
          const onMessage = (m: ServerMessage) => {
            if (m?.type === 'cache') done(m.counters);
          };
          const done = (c: CacheCounters) => {
            clearTimeout(timer);
            w!.off('message', onMessage);
            resolve(c);
          };
          w!.on('message', onMessage);
          w!.send({ type: 'cache-stats' } satisfies ControlMessage);
        }),
    ),
  );
  const sum = { ...NO_COUNTERS };
  for (const r of replies) for (const k of Object.keys(sum) as (keyof CacheCounters)[]) sum[k] += r[k];
  return sum;
}

/** With LQS_BENCH_WORKERS > 1 this process only supervises; its workers serve on one shared port. */
async function supervise(count: number): Promise<void> {
  const logger = createLogger(loadConfig().log.level);
  const supervisor = createSupervisor({ count, log: logger, replace: false });
  const { port, backend } = (await supervisor.start()) as unknown as { port: number; backend: string };
  send({ type: 'ready', port, backend });
  const sampler = new RssSampler(() => supervisor.pids().reduce((sum, pid) => sum + rssOf(pid), 0));
  const stop = async () => {
    await supervisor.stop();
    process.exit(0);
  };
  process.on('message', (message: ControlMessage) => {
    if (message.type === 'rss-start') sampler.start();
    else if (message.type === 'rss-stop') send({ type: 'rss', peakBytes: sampler.stop() });
    else if (message.type === 'cache-stats') void workersCounters().then((counters) => send({ type: 'cache', counters }));
    else if (message.type === 'stop') void stop();
  });
  process.on('disconnect', () => void stop());
}

/** Serves the app and the ceilings; in a worker, `ready` and `stop` go to and come from the supervisor. */
async function serveOne(): Promise<void> {
  const config = configWith({ db: { migrate: false } }, loadConfig());
  const logger = createLogger(config.log.level);
  const db = await openDatabase(config, (err) => logger.warn({ err }, 'database connection error'));
  try {
    // `bench pair` serves databases the generator did not write (a round trip's)
    if (process.env.LQS_BENCH_REQUIRE_DATASET !== 'false') await requireCompleteDataset(db);
  } catch (err) {
    send({ type: 'error', message: (err as Error).message });
    await db.close();
    process.exit(1);
  }
  // as serve finds them at start-up: a mirror-schema dataset without `lqs indexes` is served as an operator's database is
  const missingIndexes = await findMissingOptionalIndexes(db);
  if (missingIndexes.length > 0) logger.warn({ missingOptionalIndexes: missingIndexes.map((i) => i.name) }, 'optional indexes missing');
  // the pipeline measurement (pipeline.ts) prices each step by leaving it out
  const pipelineOff = new Set(
    (process.env.LQS_BENCH_PIPELINE_OFF ?? '')
      .split(',')
      .filter((s): s is PipelineStep => (PIPELINE_STEPS as readonly string[]).includes(s)),
  );
  const app = await buildApp({ config, db, clock: systemClock, logger, missingIndexes, pipelineOff });
  registerCeilings(app, db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  send({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0, backend: db.backend });

  const sampler = new RssSampler();
  const stop = async () => {
    await app.close();
    await app.handlersIdle();
    await db.close();
    process.exit(0);
  };
  process.on('message', (message: ControlMessage) => {
    if (message.type === 'rss-start') sampler.start();
    else if (message.type === 'rss-stop') send({ type: 'rss', peakBytes: sampler.stop() });
    else if (message.type === 'cache-stats') send({ type: 'cache', counters: countersOf(app) });
    else if (message.type === 'stop') void stop();
  });
  // how the supervisor stops its workers
  process.once('SIGTERM', () => void stop());
  // the parent going away must not leave a listener behind
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  const workers = Number(process.env.LQS_BENCH_WORKERS ?? '1');
  if (cluster.isPrimary && workers > 1) await supervise(workers);
  else await serveOne();
}

main().catch((err: unknown) => {
  process.send?.({ type: 'error', message: (err as Error).stack ?? String(err) } satisfies ServerMessage);
  process.exit(1);
});
