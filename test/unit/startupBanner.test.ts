import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { listeningUrl, startupBanner } from '../../src/startupBanner.js';

async function listening(host: string, run: (server: Server) => void): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  try {
    run(server);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('startup banner', () => {
  it('shows a wildcard address as localhost and brackets an IPv6 one', async () => {
    await listening('0.0.0.0', (s) => assert.match(listeningUrl(s), /^http:\/\/localhost:\d+$/));
    await listening('127.0.0.1', (s) => assert.match(listeningUrl(s), /^http:\/\/127\.0\.0\.1:\d+$/));
    await listening('::1', (s) => assert.match(listeningUrl(s), /^http:\/\/\[::1\]:\d+$/));
  });

  it('prints the same lines for one process and a cluster, workers named only in a cluster', () => {
    const facts = { base: 'http://localhost:5551', backend: 'pglite', adminUrl: null, examples: ['/api/v1/blocks'] };
    assert.equal(
      startupBanner({ ...facts, workers: null }),
      [
        'Ledger Query Service listening on http://localhost:5551 (pglite)',
        '  API description: http://localhost:5551/api/v1/docs',
        '  Admin listener: disabled (admin.enabled)',
        '  http://localhost:5551/api/v1/blocks',
        '',
      ].join('\n'),
    );
    const cluster = startupBanner({ ...facts, adminUrl: 'http://127.0.0.1:5552', examples: [], workers: 2 });
    assert.match(cluster, /^Ledger Query Service listening on http:\/\/localhost:5551 \(pglite, 2 worker processes\)\n/);
    assert.match(
      cluster,
      /Admin listener: http:\/\/127\.0\.0\.1:5552 \(POST http:\/\/127\.0\.0\.1:5552\/change-log-level, HTTP Basic auth\)/,
    );
  });
});
