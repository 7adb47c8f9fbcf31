/** Metrics, request ids, compression and ETag/304 through the real listener (HTTP over loopback). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startListeners, type Listeners } from '../../src/server.js';
import { createLogger } from '../../src/logger.js';
import { type Config, type ConfigOverrides, configWith } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { ServiceMetrics } from '../../src/http/metrics.js';
import type { Db } from '../../src/db/db.js';
import { useHarness } from '../support/harness.js';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One GET over a fresh connection; the body as received (no decompression). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  method?: string;
  route?: string | null;
  status?: number;
  [key: string]: unknown;
}

/** A listener over the harness's database, on an ephemeral port, with its log lines collected. */
async function listen(
  config: Config,
  db: Parameters<typeof startListeners>[0]['db'],
  clock: Parameters<typeof startListeners>[0]['clock'],
  overrides: ConfigOverrides = {},
  metrics?: ServiceMetrics,
) {
  const lines: LogLine[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const listening = configWith(overrides, configWith({ port: 0, host: '127.0.0.1', admin: { enabled: false } }, config));
  const listeners = await startListeners({ config: listening, db, clock, logger, metrics });
  return { listeners, lines };
}

/** The value of one sample of a Prometheus exposition (`name{labels}` exactly as written), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('operations through the listener', () => {
  const harness = useHarness();
  let listeners: Listeners;
  let lines: LogLine[];
  let base: string;

  before(async () => {
    const h = harness();
    const start = 1_700_000_000_000_000_000n;
    await h.prepare({
      recordFiles: [1, 2].map((i) => ({
        index: i,
        consensus_start: String(start + BigInt(i) * 1000n),
        consensus_end: String(start + BigInt(i) * 1000n + 999n),
        hash: String(i).repeat(96),
      })),
    });
    ({ listeners, lines } = await listen(h.config, h.db, h.clock));
    base = listeners.publicUrl;
  });
  after(async () => {
    await listeners?.close();
  });

  describe('metrics at /swagger/metrics/', () => {
    it("counts requests under the reference's names, labels and buckets", async () => {
      assert.equal((await rawGet(`${base}/api/v1/blocks/1`)).status, 200);
      assert.equal((await rawGet(`${base}/api/v1/blocks/2`)).status, 200);
      assert.equal((await rawGet(`${base}/api/v1/blocks?limit=x`)).status, 400);
      assert.equal((await rawGet(`${base}/api/v1/nothing`)).status, 404);
      const res = await rawGet(`${base}/swagger/metrics/`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const text = res.body.toString();
      // the scrape itself is not counted
      assert.equal(sample(text, 'api_all_request_total'), 4);
      assert.equal(sample(text, 'api_all_success_total'), 2);
      assert.equal(sample(text, 'api_all_errors_total'), 2);
      assert.equal(sample(text, 'api_all_client_error_total'), 2);
      assert.equal(sample(text, 'api_all_server_error_total'), 0);
      assert.equal(sample(text, 'api_all_request_in_processing_total'), 0);
      const block = 'method="GET",path="/api/v1/blocks/{hashOrNumber}",code="200"';
      assert.equal(sample(text, `api_request_total{${block}}`), 2);
      assert.equal(sample(text, 'api_request_total{method="GET",path="/api/v1/blocks",code="400"}'), 1);
      assert.equal(sample(text, 'api_request_total{method="GET",path="(unmatched)",code="404"}'), 1);
      for (const le of ['25', '100', '250', '500', '+Inf']) {
        assert.notEqual(sample(text, `api_request_duration_milliseconds_bucket{le="${le}",${block}}`), undefined, le);
      }
      assert.equal(sample(text, `api_request_duration_milliseconds_count{${block}}`), 2);
      assert.ok(sample(text, `api_request_duration_milliseconds_sum{${block}}`)! > 0);
      for (const le of ['100', '250', '500', '1000', '+Inf']) {
        assert.notEqual(sample(text, `api_response_size_bytes_bucket{le="${le}",${block}}`), undefined, le);
        assert.notEqual(sample(text, `api_request_size_bytes_bucket{le="${le}",${block}}`), undefined, le);
      }
      // a block is larger than 500 bytes: both in the 1000 bucket or above, none at or below 250
      assert.equal(sample(text, `api_response_size_bytes_bucket{le="250",${block}}`), 0);
      assert.equal(sample(text, `api_response_size_bytes_count{${block}}`), 2);
      // our own and the process's
      assert.equal(sample(text, 'lqs_requests_shed_total'), 0);
      assert.equal(sample(text, 'lqs_db_errors_total{kind="timeout"}'), 0);
      assert.notEqual(sample(text, 'nodejs_eventloop_lag_seconds'), undefined);
      assert.ok(sample(text, 'process_cpu_seconds_total')! > 0, 'process CPU counted from the start of the app, not from the first scrape');
    });

    it('counts 503s shed beyond the in-flight cap', async () => {
      const h = harness();
      // the scrape would be shed too: a second listener without the cap shares the metrics
      const metrics = new ServiceMetrics(h.db);
      const shedding = await listen(h.config, h.db, h.clock, { server: { maxInFlight: 0 } }, metrics);
      const scraped = await listen(h.config, h.db, h.clock, {}, metrics);
      let text: string;
      try {
        assert.equal((await rawGet(`${shedding.listeners.publicUrl}/api/v1/blocks`)).status, 503);
        text = (await rawGet(`${scraped.listeners.publicUrl}/swagger/metrics`)).body.toString();
      } finally {
        await shedding.listeners.close();
        await scraped.listeners.close();
      }
      assert.equal(sample(text, 'lqs_requests_shed_total'), 1);
      assert.equal(sample(text, 'api_request_total{method="GET",path="/api/v1/blocks",code="503"}'), 1);
      assert.equal(sample(text, 'api_all_server_error_total'), 1);
    });

    it('asks for Basic credentials when metrics.config.authentication is on', async () => {
      const h = harness();
      const secured = await listen(h.config, h.db, h.clock, {
        metrics: { config: { authentication: true, username: 'prom', password: 's3cret', uriPath: '/swagger' } },
      });
      try {
        const url = `${secured.listeners.publicUrl}/swagger/metrics/`;
        const refused = await rawGet(url);
        assert.equal(refused.status, 401);
        assert.equal(refused.headers['www-authenticate'], 'Basic realm="metrics"');
        assert.deepEqual(JSON.parse(refused.body.toString()), { _status: { messages: [{ message: 'Unauthorized' }] } });
        const wrong = await rawGet(url, { authorization: 'Basic ' + Buffer.from('prom:nope').toString('base64') });
        assert.equal(wrong.status, 401);
        const ok = await rawGet(url, { authorization: 'Basic ' + Buffer.from('prom:s3cret').toString('base64') });
        assert.equal(ok.status, 200);
        assert.match(ok.body.toString(), /^# HELP api_all_request_total/m);
      } finally {
        await secured.listeners.close();
      }
    });
  });

  describe('database metrics', () => {
    it('counts database failures by kind and reports the pool', async () => {
      const h = harness();
      let failure: Error = new Error('none');
      const failing: Db = {
        ...h.db,
        backend: 'postgres',
        query: async () => {
          throw failure;
        },
        poolStats: () => ({ total: 4, idle: 1, waiting: 7 }),
      };
      const app = await buildApp({ config: h.config, db: failing, clock: h.clock, logger: createLogger('silent') });
      try {
        const fail = async (code: string, message: string) => {
          failure = Object.assign(new Error(message), { code });
          return (await app.inject('/api/v1/blocks')).statusCode;
        };
        assert.equal(await fail('57014', 'canceling statement due to statement timeout'), 503);
        assert.equal(await fail('57014', 'canceling statement due to statement timeout'), 503);
        assert.equal(await fail('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 503);
        assert.equal(await fail('42P01', 'relation "record_file" does not exist'), 500);
        const text = (await app.inject('/swagger/metrics/')).body;
        assert.equal(sample(text, 'lqs_db_errors_total{kind="timeout"}'), 2);
        assert.equal(sample(text, 'lqs_db_errors_total{kind="unavailable"}'), 1);
        assert.equal(sample(text, 'lqs_db_errors_total{kind="query"}'), 1);
        assert.equal(sample(text, 'lqs_db_errors_total{kind="idle_connection"}'), 0);
        assert.equal(sample(text, 'lqs_db_pool_connections'), 4);
        assert.equal(sample(text, 'lqs_db_pool_idle_connections'), 1);
        assert.equal(sample(text, 'lqs_db_pool_waiting_requests'), 7);
        assert.equal(sample(text, 'api_all_server_error_total'), 4);
        // handled database failures are not load shedding
        assert.equal(sample(text, 'lqs_requests_shed_total'), 0);
      } finally {
        await app.close();
      }
    });
  });

  describe('requests in processing', () => {
    it('counts a request until its connection is done with it, also when the client goes away first', async () => {
      const h = harness();
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow: Db = {
        ...h.db,
        query: async (text, params) => {
          await gate;
          return h.db.query(text, params);
        },
      };
      const { listeners: slowListeners } = await listen(h.config, slow, h.clock);
      try {
        const url = slowListeners.publicUrl;
        const abandoned = httpRequest(`${url}/api/v1/blocks`);
        abandoned.on('error', () => undefined);
        abandoned.end();
        const inProcessing = async () =>
          sample((await rawGet(`${url}/swagger/metrics/`)).body.toString(), 'api_all_request_in_processing_total');
        for (let i = 0; i < 50 && (await inProcessing()) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(await inProcessing(), 1);
        abandoned.destroy();
        for (let i = 0; i < 50 && (await inProcessing()) !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(await inProcessing(), 0);
      } finally {
        release();
        await slowListeners.close();
      }
    });
  });

  describe('request ids', () => {
    it('echoes a well-formed X-Request-Id and logs every line of the request with it', async () => {
      lines.length = 0;
      const res = await rawGet(`${base}/api/v1/blocks/1`, { 'x-request-id': 'trace-42.a:b' });
      assert.equal(res.headers['x-request-id'], 'trace-42.a:b');
      const own = lines.filter((l) => l.requestId === 'trace-42.a:b');
      const completed = own.find((l) => l.msg === 'request completed');
      assert.ok(completed, JSON.stringify(lines));
      assert.equal(completed.method, 'GET');
      assert.equal(completed.route, '/api/v1/blocks/:hashOrNumber');
      assert.equal(completed.status, 200);
      assert.equal(typeof completed.ms, 'number');
      assert.deepEqual(
        lines.filter((l) => l.requestId !== undefined && l.requestId !== 'trace-42.a:b'),
        [],
      );
    });

    it('replaces a malformed one and generates distinct ids, also on errors and 404s', async () => {
      const bad = await rawGet(`${base}/api/v1/blocks/1`, { 'x-request-id': 'a b"<x>' });
      const long = await rawGet(`${base}/api/v1/blocks/1`, { 'x-request-id': 'x'.repeat(129) });
      const error = await rawGet(`${base}/api/v1/blocks?limit=x`);
      const missing = await rawGet(`${base}/nowhere`);
      const ids = [bad, long, error, missing].map((r) => String(r.headers['x-request-id']));
      for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(new Set(ids).size, ids.length);
      const completed = lines.find((l) => l.requestId === ids[3] && l.msg === 'request completed');
      assert.equal(completed?.status, 404);
      assert.equal(completed?.route, null);
    });
  });

  describe('compression', () => {
    const url = () => `${base}/api/v1/docs/openapi.yml`;

    it('sends gzip or br to a client that accepts it, the same bytes once decoded', async () => {
      const plain = await rawGet(url());
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.body.length > 1024);
      const gzip = await rawGet(url(), { 'accept-encoding': 'gzip' });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.equal(gzip.headers.vary, 'accept-encoding');
      assert.ok(gzip.body.length < plain.body.length / 2);
      assert.deepEqual(gunzipSync(gzip.body), plain.body);
      const br = await rawGet(url(), { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      const identity = await rawGet(url(), { 'accept-encoding': 'identity' });
      assert.equal(identity.headers['content-encoding'], undefined);
    });

    it('leaves bodies below the threshold as they are', async () => {
      const res = await rawGet(`${base}/api/v1/blocks?limit=x`, { 'accept-encoding': 'gzip, br' });
      assert.ok(res.body.length < 1024);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(res.body.toString())._status.messages[0].message, 'Invalid parameter: limit');
    });
  });

  describe('ETag and If-None-Match', () => {
    it('tags every 200 and answers 304 with no body when the tag matches', async () => {
      const first = await rawGet(`${base}/api/v1/blocks/1`);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/);
      const again = await rawGet(`${base}/api/v1/blocks/1`, { 'if-none-match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, etag);
      assert.equal(again.headers['cache-control'], first.headers['cache-control']);
      const listed = await rawGet(`${base}/api/v1/blocks/1`, { 'if-none-match': `W/"other", ${etag.slice(2)}` });
      assert.equal(listed.status, 304);
      const other = await rawGet(`${base}/api/v1/blocks/2`, { 'if-none-match': etag });
      assert.equal(other.status, 200);
      assert.notEqual(other.headers.etag, etag);
      // compressed or not, one representation, one tag
      const compressed = await rawGet(`${base}/api/v1/docs/openapi.yml`, { 'accept-encoding': 'gzip' });
      const plain = await rawGet(`${base}/api/v1/docs/openapi.yml`);
      assert.equal(compressed.headers.etag, plain.headers.etag);
      assert.equal(
        (await rawGet(`${base}/api/v1/docs/openapi.yml`, { 'accept-encoding': 'br', 'if-none-match': String(plain.headers.etag) })).status,
        304,
      );
    });

    it('puts no tag on errors and never answers them 304', async () => {
      const err = await rawGet(`${base}/api/v1/blocks?limit=x`);
      assert.equal(err.status, 400);
      assert.equal(err.headers.etag, undefined);
      const again = await rawGet(`${base}/api/v1/blocks?limit=x`, { 'if-none-match': '*' });
      assert.equal(again.status, 400);
    });
  });
});
