/**
 * `node --expose-gc dist/tools/bench/cacheMemory.js [--entry-bytes N] [--max-mib N]`: what the
 * response cache costs the process when its entries fill its byte bound. Fills an in-process
 * ResponseCache (no Redis) with answers of `--entry-bytes` under keys and headers like the routes'
 * (a block by number, `public, max-age=600`, every fourth a list with a next link) until it evicts,
 * and prints the resident memory it added next to the bytes it counted. The per-entry overhead it
 * charges (ENTRY_OVERHEAD_BYTES) comes from this measurement.
 */
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { defaultConfig } from '../../src/config.js';
import { ResponseCache } from '../../src/http/responseCache.js';

const { values } = parseArgs({
  options: { 'entry-bytes': { type: 'string', default: '1024' }, 'max-mib': { type: 'string', default: '64' } },
});
const entryBytes = Number(values['entry-bytes']);
const maxBytes = Number(values['max-mib']) * 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function settledRss(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().rss;
}

const silent = { warn() {}, info() {}, error() {}, debug() {} } as unknown as FastifyBaseLogger;
const settings = defaultConfig().cache;
const cache = new ResponseCache({ ...settings, maxBytes }, silent);
const body = (n: number) => `{"number":${n},"hash":"0x${'ab'.repeat(48)}","pad":"${'x'.repeat(Math.max(0, entryBytes - 140))}"}`;

function store(n: number): void {
  const list = n % 4 === 0;
  const key = list ? `GET /api/v1/blocks [["limit","1"],["block.number","lt:${n}"]]` : `GET /api/v1/blocks/${n} []`;
  // what the onSend hooks before the cache's have set (the cache keeps what it restores of them)
  const headers: Record<string, string> = {
    'access-control-allow-origin': '*',
    'x-content-type-options': 'nosniff',
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'public, max-age=600',
  };
  if (list) headers.link = `</api/v1/blocks?limit=1&block.number=lt:${n - 1}>; rel="next"`;
  cache.set(key, headers, body(n), 600);
}

const mib = (n: number) => (n / 2 ** 20).toFixed(1);
function report(phase: string, grown: number): void {
  const { entries, bytes } = cache.snapshot();
  const figures = {
    entries,
    countedMiB: mib(bytes),
    rssGrowthMiB: mib(grown),
    rssGrowthPerEntry: Math.round(grown / entries),
    countedPerEntry: Math.round(bytes / entries),
    rssGrowthOverBound: (grown / maxBytes).toFixed(2),
  };
  console.log(JSON.stringify({ phase, entryBytes, boundMiB: mib(maxBytes), ...figures }));
}

const before = settledRss();
// filled: until the first eviction
let n = 0;
while (cache.snapshot().entries === n) store(n++);
report('filled', settledRss() - before);
// churned: as many entries again, each evicting older ones (freed memory the allocator keeps)
for (const end = 2 * n; n < end; n++) store(n);
report('churned', settledRss() - before);
await cache.close();
