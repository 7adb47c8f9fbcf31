import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CpuUsageMeter } from '../../src/http/referenceProcessMetrics.js';
import { useHarness } from '../support/harness.js';

/**
 * The series the reference's Grafana dashboard for the REST API (hedera-mirror-rest.json) and its
 * RestHighCPU alert query, with the labels they group or filter by (the Kubernetes labels
 * `container`, `cluster`, `namespace`, `pod` come from the scrape, not from the service).
 */
const DASHBOARD_SERIES: readonly [name: string, labels: readonly string[]][] = [
  ['api_all_request_total', []],
  ['api_all_request_in_processing_total', []],
  ['api_all_errors_total', []],
  ['api_request_total', ['path', 'code']],
  ['api_request_duration_milliseconds_bucket', ['path', 'code', 'le']],
  ['api_request_duration_milliseconds_sum', ['path']],
  ['api_request_duration_milliseconds_count', ['path']],
  ['api_response_size_bytes_bucket', ['le']],
  ['api_response_size_bytes_sum', ['path', 'code']],
  ['api_response_size_bytes_count', ['path', 'code']],
  ['nodejs_process_memory_external_bytes', []],
  ['nodejs_process_memory_rss_bytes', []],
  ['nodejs_process_memory_heap_used_bytes', []],
  ['nodejs_process_memory_heap_total_bytes', []],
  ['nodejs_process_cpu_usage_percentage', []],
];

/** name → the label sets of its samples and their values, from the text format. */
function parseScrape(text: string): Map<string, { labels: Record<string, string>; value: number }[]> {
  const series = new Map<string, { labels: Record<string, string>; value: number }[]>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    const list = series.get(m[1]!) ?? [];
    list.push({ labels, value: Number(m[3]) });
    series.set(m[1]!, list);
  }
  return series;
}

describe("the reference's REST dashboard and CPU alert read this service's metrics", () => {
  const harness = useHarness();

  it('scrapes every series the dashboard queries, with its labels, and the process gauges in their units', async () => {
    await harness().prepare({});
    assert.equal((await harness().app.inject({ method: 'GET', url: '/api/v1/blocks' })).statusCode, 200);
    const res = await harness().app.inject({ method: 'GET', url: '/swagger/metrics/' });
    assert.equal(res.statusCode, 200);
    const scrape = parseScrape(res.body);
    for (const [name, labels] of DASHBOARD_SERIES) {
      const samples = scrape.get(name);
      assert.ok(samples && samples.length > 0, `${name} is scraped`);
      assert.ok(
        samples.some((s) => labels.every((label) => label in s.labels)),
        `${name} carries ${labels.join(', ')}`,
      );
    }
    for (const kind of ['rss', 'heap_total', 'heap_used', 'external']) {
      const [sample] = scrape.get(`nodejs_process_memory_${kind}_bytes`)!;
      assert.ok(sample!.value > 0 && Number.isInteger(sample!.value), `${kind}: ${sample!.value} bytes`);
      assert.deepEqual(sample!.labels, {});
    }
    assert.ok(scrape.get('nodejs_process_memory_rss_bytes')![0]!.value > scrape.get('nodejs_process_memory_heap_used_bytes')![0]!.value);
    const [cpu] = scrape.get('nodejs_process_cpu_usage_percentage')!;
    assert.ok(cpu!.value >= 0, `CPU ${cpu!.value}%`);
    assert.match(res.body, /# TYPE nodejs_process_cpu_usage_percentage gauge/);
  });

  it('measures CPU use between readings in percent of one core', () => {
    const meter = new CpuUsageMeter({ at: 0n, usage: { user: 0, system: 0 } });
    // 1 s of wall time, 0.25 s user and 0.25 s system: half a core
    assert.equal(meter.read(1_000_000_000n, { user: 250_000, system: 250_000 }), 50);
    // the next second: 1.5 s of CPU on more than one core
    assert.equal(meter.read(2_000_000_000n, { user: 1_250_000, system: 750_000 }), 150);
    // no time passed: 0, not a division by zero
    assert.equal(meter.read(2_000_000_000n, { user: 1_250_000, system: 750_000 }), 0);
  });
});
