/**
 * The bench's `--workers N`: the cluster primary forks workers that run the same script and share
 * its listening port (the primary hands out connections round-robin); the primary only supervises.
 * It measures whether a worker per core pays on a host that also runs PostgreSQL (on the 2-core
 * bench machine it does not: see tools/bench/README.md).
 */
import cluster, { type Worker } from 'node:cluster';

export type WorkerMessage = { type: string } & Record<string, unknown>;

interface SupervisorLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface Supervisor {
  /** the first `ready` message (every worker listens on the same port) */
  ready: WorkerMessage;
  pids(): number[];
  /** asks every worker to stop (`{type:'stop'}`), waits for them, kills what is left after `timeoutMs` */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Forks `count` workers and resolves once each has sent `{type:'ready'}`. A worker that dies before
 * that fails the start (the others are stopped); one that dies later is logged as an error and not
 * replaced, so that the measurement shows it rather than hiding it.
 */
export function startWorkers(options: { count: number; log: SupervisorLog }): Promise<Supervisor> {
  const live = new Set<Worker>();
  let stopping = false;

  const fork = (): Promise<WorkerMessage> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      live.add(worker);
      let isReady = false;
      worker.on('message', (message: WorkerMessage) => {
        if (message?.type === 'ready' && !isReady) {
          isReady = true;
          resolve(message);
        }
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (!isReady) reject(new Error(`worker ${worker.process.pid} exited with ${signal ?? code} before it was ready`));
        else if (!stopping) options.log.error({ pid: worker.process.pid, code, signal }, 'worker died');
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
      options.log.info({ workers: options.count, pids: [...live].map((w) => w.process.pid) }, 'workers ready');
      return {
        ready: readies[0]!,
        pids: () => [...live].map((w) => w.process.pid).filter((pid): pid is number => pid !== undefined),
        stop,
      };
    },
    async (err: unknown) => {
      await stop(5_000);
      throw err;
    },
  );
}
