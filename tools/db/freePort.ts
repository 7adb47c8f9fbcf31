import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on at the moment (for a private server a test or tool starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
