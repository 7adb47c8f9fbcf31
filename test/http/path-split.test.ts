import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { errorOf, get, useHarness } from '../support/harness.js';

/** The regular expressions of the README's path split section (its first fenced block). */
function readmeRouteRegexes(): RegExp[] {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Path split'));
  const block = /```text\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has a path split section with a fenced list');
  return block[1]!
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => new RegExp(line.trim()));
}

/** Every GET route of the app, as full paths, from Fastify's route tree (`printRoutes`). */
function registeredRoutes(tree: string): string[] {
  const prefixes: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+) \(([^)]*)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + m[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    if (m[3]!.split(', ').includes('GET')) routes.push(path);
  }
  return routes;
}

/** Values of every path parameter the routes use, in each of the shapes they accept. */
const SAMPLES: Record<string, string[]> = {
  idOrAliasOrEvmAddress: [
    '0.0.1001',
    '1001',
    'HIQQEXWKW53RKN4W6XXC4Q232SYNZ3SZANVZZSUME5B5PRGXL663UAQA',
    '0x00000000000000000000000000000000000003e9',
  ],
  hashOrNumber: ['7', '0x' + 'ab'.repeat(32), 'ab'.repeat(48)],
  transactionIdOrHash: ['0.0.1001-1700000000-000000001', '0x' + '0a'.repeat(32), '0A'.repeat(32)],
  contractIdOrAddress: ['0.0.1002', '0x00000000000000000000000000000000000003ea'],
  timestamp: ['1700000000', '1700000000.000000001'],
};

function samplePaths(route: string): string[] {
  let paths = [''];
  for (const segment of route.split('/').slice(1)) {
    const values = segment.startsWith(':') ? SAMPLES[segment.slice(1)] : [segment];
    assert.ok(values, `a sample for the parameter ${segment} of ${route}`);
    paths = paths.flatMap((path) => values.map((value) => `${path}/${value}`));
  }
  return paths.flatMap((path) => [path, `${path}/`]);
}

/** The reference's endpoints this service does not serve, among them those next to its own. */
const REFERENCE_ONLY = [
  '/api/v1/accounts',
  '/api/v1/accounts/0.0.2/tokens',
  '/api/v1/accounts/0.0.2/allowances/crypto',
  '/api/v1/accounts/0.0.2/rewards',
  '/api/v1/balances',
  '/api/v1/transactions',
  '/api/v1/transactions/0.0.2-1700000000-000000001',
  '/api/v1/contracts',
  '/api/v1/contracts/0.0.5',
  '/api/v1/contracts/0.0.5/results',
  '/api/v1/contracts/0.0.5/results/logs',
  '/api/v1/contracts/0.0.5/state',
  '/api/v1/contracts/results',
  '/api/v1/contracts/results/logs',
  `/api/v1/contracts/results/0x${'0a'.repeat(32)}/actions`,
  `/api/v1/contracts/results/0x${'0a'.repeat(32)}/opcodes`,
  '/api/v1/contracts/call',
  '/api/v1/network/supply',
  '/api/v1/tokens/0.0.5/nfts',
  '/api/v1/topics/0.0.5/messages',
];

describe('path split: the README lists the routes for an ingress', () => {
  const harness = useHarness();

  it('lists one regular expression per API route, matching each route and nothing of the reference', () => {
    const regexes = readmeRouteRegexes();
    const api = registeredRoutes(harness().app.printRoutes({ method: 'GET', commonPrefix: false })).filter(
      (route) => route.startsWith('/api/v1/') && !route.startsWith('/api/v1/docs'),
    );
    assert.equal(api.length, 6, `the API routes: ${api.join(', ')}`);
    assert.equal(regexes.length, api.length);
    for (const route of api) {
      const matching = regexes.filter((regex) => samplePaths(route).every((path) => regex.test(path)));
      assert.equal(matching.length, 1, `one README regex matches every sample of ${route}`);
    }
    for (const path of REFERENCE_ONLY) {
      for (const regex of regexes) assert.ok(!regex.test(path), `${regex} matches the reference's ${path}`);
    }
  });

  it('answers the reference-only paths 404 in the error envelope, the logs endpoints included', async () => {
    await harness().prepare({});
    for (const path of REFERENCE_ONLY) {
      const res = await get(harness(), `${path}?topic0=0x01`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, errorOf('Not found'), path);
    }
  });
});
