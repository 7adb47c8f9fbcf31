/**
 * The listeners' ports checked before the slow part of start-up (opening and checking the database,
 * the demo ledger), so that a port in use stops the start at once, with the same line as when the
 * listener itself finds it. Each port is bound and released at once: a process taking it in between
 * is still found by the listener.
 */
import { createServer } from 'node:net';
import type { Config } from './config.js';

function probe(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Rejects with the listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL) of the first listener that cannot bind; port 0 is always free. */
export async function checkPorts(config: Config): Promise<void> {
  if (config.port !== 0) await probe(config.port, config.host);
  if (config.admin.enabled && config.admin.port !== 0) await probe(config.admin.port, config.admin.host);
}
