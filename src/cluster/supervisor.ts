/**
 * A node:cluster primary that only supervises: it forks workers running the same script, which
 * share its listening ports (the primary hands connections out round-robin), waits for each one's
 * `{type:'ready'}` message, replaces a worker that dies with a growing delay, and stops them all.
 * Used by `serve` (`server.workers`) and by the bench (`--workers`).
 */
import cluster, { type Worker } from 'node:cluster';

export type WorkerMessage = { type: string } & Record<string, unknown>;

export interface SupervisorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface Backoff {
  /** delay before the first replacement after a failure; doubled for each further failure */
  initialMs: number;
  maxMs: number;
  /** a worker that ran this long before it died resets the delay */
  stableMs: number;
  /** replacements in a row that die before they are ready, after which the primary gives up */
  maxStartFailures: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, stableMs: 30_000, maxStartFailures: 5 };

export interface SupervisorOptions {
  count: number;
  log: SupervisorLog;
  /** variables of a worker beyond the primary's, read at each fork (a replacement gets the current log level) */
  env?: () => Record<string, string>;
  /** replace a worker that dies after start-up (the service); the bench leaves it dead so that its measurement shows it */
  replace?: boolean;
  backoff?: Backoff;
  /** every message of a worker other than `ready` */
  onMessage?: (worker: Worker, message: WorkerMessage) => void;
  /** replacements kept dying before they were ready: every worker has been stopped */
  onGiveUp?: (reason: string) => void;
}

export interface Supervisor {
  /**
   * Forks the first worker alone (it may migrate the schema or load data), then the others at once,
   * and resolves with the first one's `ready` message (every worker listens on the same ports) once
   * all are ready. A worker that dies during this start fails it (the others are stopped): a
   * start-up error is not retried.
   */
  start(): Promise<WorkerMessage>;
  pids(): number[];
  /** sends `message` to every connected worker */
  broadcast(message: WorkerMessage): void;
  /** SIGTERM to every worker (also during start()), waits for them, kills what is left after `timeoutMs` */
  stop(timeoutMs?: number): Promise<void>;
}

/** A worker that exited before it was ready; `code` is its exit code or signal. */
export class WorkerStartError extends Error {
  constructor(
    readonly pid: number | undefined,
    readonly code: number | string | null,
  ) {
    super(`worker process ${pid ?? '?'} exited (${code}) before it was ready`);
  }
}

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const live = new Set<Worker>();
  let stopping = false;
  let failures = 0;
  let startFailures = 0;
  /** replacements waiting for their delay (two workers may die at once) */
  const pending = new Set<NodeJS.Timeout>();

  const stop = async (timeoutMs = 30_000) => {
    stopping = true;
    for (const timer of pending) clearTimeout(timer);
    pending.clear();
    const exits = [...live].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of live) if (!w.isDead()) w.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const w of live) if (!w.isDead()) w.process.kill('SIGKILL');
    }, timeoutMs);
    await Promise.all(exits);
    clearTimeout(timer);
  };

  const scheduleReplacement = () => {
    const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
    options.log.info({ delayMs: delay }, 'replacing the worker');
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (stopping) return;
      fork().then(
        (message) => options.log.info({ workerPid: message.pid }, 'worker replaced'),
        async (err: unknown) => {
          if (stopping) return;
          startFailures++;
          failures++;
          options.log.error({ err: String((err as Error).message), startFailures }, 'replacement worker failed to start');
          if (startFailures < backoff.maxStartFailures) return scheduleReplacement();
          const reason = `${startFailures} worker processes in a row exited before they were ready; giving up`;
          options.log.error({ startFailures }, 'giving up: workers keep dying at start-up');
          await stop();
          options.onGiveUp?.(reason);
        },
      );
    }, delay);
    pending.add(timer);
  };

  const fork = (): Promise<WorkerMessage> =>
    new Promise((resolve, reject) => {
      if (stopping) return reject(new Error('the workers are being stopped'));
      const worker = cluster.fork(options.env?.() ?? {});
      live.add(worker);
      let readyAt: number | null = null;
      worker.on('message', (message: WorkerMessage) => {
        if (message?.type === 'ready' && readyAt === null) {
          readyAt = Date.now();
          startFailures = 0;
          resolve({ ...message, pid: worker.process.pid });
        } else if (message && typeof message.type === 'string') {
          options.onMessage?.(worker, message);
        }
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (readyAt === null) return reject(new WorkerStartError(worker.process.pid, signal ?? code));
        if (stopping) return;
        options.log.error({ workerPid: worker.process.pid, code, signal }, 'worker died');
        if (options.replace === false) return;
        failures = Date.now() - readyAt >= backoff.stableMs ? 1 : failures + 1;
        scheduleReplacement();
      });
    });

  return {
    start: async () => {
      try {
        const first = await fork();
        const rest = await Promise.all(Array.from({ length: options.count - 1 }, () => fork()));
        options.log.info({ workers: options.count, workerPids: [first, ...rest].map((m) => m.pid) }, 'workers ready');
        return first;
      } catch (err) {
        await stop(5_000);
        throw err;
      }
    },
    pids: () => [...live].map((w) => w.process.pid).filter((pid): pid is number => pid !== undefined),
    broadcast: (message) => {
      for (const w of live) if (w.isConnected()) w.send(message);
    },
    stop,
  };
}
