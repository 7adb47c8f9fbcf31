/**
 * The bench's `--workers N`: the cluster primary forks workers that run the same script and share
 * its listening port (the primary hands out connections round-robin); the primary only supervises.
 * It measures whether a worker per core pays on a host that also runs PostgreSQL (on the 2-core
 * bench machine it does not: see bench/README.md).
 */
import cluster, { type Worker } from 'node:cluster';

export type WorkerMessage = { type: string } & Record<string, unknown>;

interface SupervisorLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SupervisorOptions {
  count: number;
  log: SupervisorLog;
  /** messages workers send other than `ready` */
  onMessage?: (worker: Worker, message: WorkerMessage) => void;
  /** delay before a worker that died is replaced */
  restartDelayMs?: number;
}

export interface Supervisor {
  /** the first `ready` message (every worker listens on the same port) */
  ready: WorkerMessage;
  pids(): number[];
  broadcast(message: WorkerMessage): void;
  /** asks every worker to stop (`{type:'stop'}`), waits for them, kills what is left after `timeoutMs` */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Forks `count` workers and resolves once each has sent `{type:'ready'}`. A worker that dies before
 * that fails the start (the others are stopped); one that dies later is replaced.
 */
export function startWorkers(options: SupervisorOptions): Promise<Supervisor> {
  const live = new Set<Worker>();
  let stopping = false;
  let started = false;

  const fork = (): Promise<WorkerMessage> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      live.add(worker);
      let isReady = false;
      worker.on('message', (message: WorkerMessage) => {
        if (message?.type === 'ready' && !isReady) {
          isReady = true;
          resolve(message);
        } else options.onMessage?.(worker, message);
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (!isReady) return reject(new Error(`worker ${worker.process.pid} exited with ${signal ?? code} before it was ready`));
        if (stopping || !started) return;
        options.log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
        setTimeout(() => {
          if (!stopping) fork().catch((err: unknown) => options.log.error({ err }, 'replacement worker failed to start'));
        }, options.restartDelayMs ?? 1_000).unref();
      });
    });

  const stop = async (timeoutMs = 15_000) => {
    stopping = true;
    const exits = [...live].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of live) if (w.isConnected()) w.send({ type: 'stop' });
    const timer = setTimeout(() => {
      for (const w of live) w.process.kill('SIGKILL');
    }, timeoutMs);
    await Promise.all(exits);
    clearTimeout(timer);
  };

  return Promise.all(Array.from({ length: options.count }, fork)).then(
    (readies) => {
      started = true;
      options.log.info({ workers: options.count, pids: [...live].map((w) => w.process.pid) }, 'workers ready');
      return {
        ready: readies[0]!,
        pids: () => [...live].map((w) => w.process.pid!).filter((pid) => pid !== undefined),
        broadcast: (message) => {
          for (const w of live) if (w.isConnected()) w.send(message);
        },
        stop,
      };
    },
    async (err: unknown) => {
      await stop(5_000);
      throw err;
    },
  );
}
