/** Starts tools/bench/server.ts as a child process and talks to it (readiness, RSS sampling, stop). */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CacheCounters, ControlMessage, ServerMessage } from './protocol.js';

export interface BenchService {
  baseUrl: string;
  backend: string;
  /** the child's process id (RSS and open files can be read from /proc) */
  pid: number;
  /** starts sampling the child's RSS */
  rssStart(): void;
  /** stops sampling; the peak RSS in bytes since rssStart */
  rssStop(): Promise<number>;
  /** the response cache's counters so far */
  cacheCounters(): Promise<CacheCounters>;
  stop(): Promise<void>;
}

function nextMessage<T extends ServerMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ServerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ServerMessage) => {
      if (message.type === type) {
        cleanup();
        resolve(message as Extract<ServerMessage, { type: T }>);
      } else if (message.type === 'error') {
        cleanup();
        reject(new Error(`bench server: ${message.message}`));
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`bench server exited with ${code} before ${type}`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * The service child's environment: the dataset's database, its pool size and the number of workers.
 * The response cache is off (the cold mixes measure the database path; a mix's 2,000 requests are
 * cycled through, so a cache would turn them into repeats) unless `cache` says otherwise.
 */
export function serviceEnv(
  datasetEnv: Record<string, string | undefined>,
  options: { pool: number; workers: number },
  cache: { enabled: boolean; redisUrl?: string; redisKeyPrefix?: string } = { enabled: false },
): Record<string, string | undefined> {
  return {
    ...datasetEnv,
    LQS_DB_POOLSIZE: String(options.pool),
    LQS_BENCH_WORKERS: String(options.workers),
    LQS_CACHE_ENABLED: String(cache.enabled),
    LQS_CACHE_REDIS_URL: cache.redisUrl ?? '',
    LQS_CACHE_REDIS_KEYPREFIX: cache.redisKeyPrefix,
  };
}

/** `execArgv`: Node options for the child (the profiler's `--cpu-prof`, for example). */
export async function startService(env: Record<string, string | undefined>, execArgv: string[] = []): Promise<BenchService> {
  const script = fileURLToPath(new URL('./server.js', import.meta.url));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LQS_LOG_LEVEL: process.env.LQS_LOG_LEVEL ?? 'warn' };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  // the service's log goes to stderr with the bench's progress; stdout carries only the report
  const child = fork(script, [], { env: childEnv, execArgv, stdio: ['ignore', 2, 2, 'ipc'] });
  const ready = await nextMessage(child, 'ready');
  const send = (message: ControlMessage) => child.send(message);
  return {
    baseUrl: `http://127.0.0.1:${ready.port}`,
    backend: ready.backend,
    pid: child.pid!,
    rssStart: () => send({ type: 'rss-start' }),
    async rssStop() {
      const reply = nextMessage(child, 'rss');
      send({ type: 'rss-stop' });
      return (await reply).peakBytes;
    },
    async cacheCounters() {
      const reply = nextMessage(child, 'cache');
      send({ type: 'cache-stats' });
      return (await reply).counters;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
