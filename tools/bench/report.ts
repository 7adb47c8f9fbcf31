/** Aggregation of the measurements (medians over runs) and the JSON, Markdown and SVG outputs. */
import type { DatasetSummary } from '../generate/dataset.js';
import type { CpuPerRequest } from './cpu.js';
import type { LoadResult } from './load.js';
import { median, sumCounts } from './stats.js';
import { CEILING_TARGETS, TARGET_ROUTES, type TargetName } from './targets.js';

/** Seconds of the PK ceiling measurement paired with an endpoint measurement of `durationSeconds`. */
export const pairSeconds = (durationSeconds: number) => Math.max(1, durationSeconds / 2);

export interface Measurement extends LoadResult {
  scale: string;
  target: TargetName;
  concurrency: number;
  run: number;
  rssPeakMb: number;
  /** CPU microseconds per request of the service's processes and of the PostgreSQL processes on this host (null when none is here) */
  cpuUsPerRequest?: CpuPerRequest;
  /** an endpoint's: req/s of the PK ceiling measured right after it, at the same concurrency */
  pairedPkCeilingRps?: number;
  /** a PK ceiling measurement taken as such a pair (checked for errors, not part of the ceiling's own row) */
  paired?: boolean;
}

export interface AggregateRow {
  scale: string;
  target: TargetName;
  route: string;
  concurrency: number;
  runs: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  statuses: Record<string, number>;
  non2xx: Record<string, number>;
  unexpected: number;
  socketErrors: Record<string, number>;
  rssMb: number;
  /** medians of the measurements' CPU per request (µs); NaN where not measured */
  serviceCpuUs: number;
  postgresCpuUs: number;
  loadGeneratorCpuUs: number;
  /** req/s as a share of the ceilings' req/s at the same scale and concurrency */
  ofJsonCeiling: number;
  ofPkCeiling: number;
  /** p50 at this scale over p50 at the smaller one (only on the larger scale) */
  p50Growth: number | null;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  backend: string;
  options: {
    seed: number;
    schema?: string;
    pool?: number;
    workers?: number;
    runs: number;
    durationSeconds: number;
    concurrency: number[];
    targets: string[];
  };
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  datasets: { scale: string; totalRows: number; rows: Record<string, number>; load: DatasetSummary['load'] }[];
  mixes: Record<string, Record<string, Record<string, number>>>;
  results: AggregateRow[];
  measurements: Measurement[];
  /** the cost of compression on the larger dataset (absent in reports written before it was measured) */
  compression?: CompressionRow[];
  /** the hot mixes on the larger dataset (absent when not measured) */
  hot?: HotRow[];
  hotMeasurements?: HotMeasurement[];
}

/** One endpoint under one Accept-Encoding, over the rounds of the compression measurement. */
export interface CompressionRow {
  scale: string;
  target: TargetName;
  encoding: 'identity' | 'gzip' | 'br';
  concurrency: number;
  rounds: number;
  rps: number;
  bytesPerResponse: number;
  serviceCpuUs: number;
  /** medians over rounds of the ratio to identity measured in the same round */
  bytesRatio: number;
  serviceCpuRatio: number;
  rpsRatio: number;
}

/** Medians over rounds, and each round's ratio to its own identity measurement. */
export function aggregateCompression(
  samples: {
    scale: string;
    target: TargetName;
    encoding: CompressionRow['encoding'];
    concurrency: number;
    round: number;
    rps: number;
    bytesPerResponse: number;
    serviceCpuUs: number;
  }[],
): CompressionRow[] {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const rows: CompressionRow[] = [];
  const keys = [...new Set(samples.map((x) => `${x.scale}|${x.target}|${x.encoding}|${x.concurrency}`))];
  for (const key of keys) {
    const group = samples.filter((x) => `${x.scale}|${x.target}|${x.encoding}|${x.concurrency}` === key);
    const first = group[0]!;
    const identityOf = (round: number) =>
      samples.find(
        (x) =>
          x.scale === first.scale &&
          x.target === first.target &&
          x.concurrency === first.concurrency &&
          x.round === round &&
          x.encoding === 'identity',
      );
    const ratio = (value: (x: (typeof samples)[number]) => number) => median(group.map((x) => value(x) / value(identityOf(x.round) ?? x)));
    rows.push({
      scale: first.scale,
      target: first.target,
      encoding: first.encoding,
      concurrency: first.concurrency,
      rounds: group.length,
      rps: median(group.map((x) => x.rps)),
      bytesPerResponse: median(group.map((x) => x.bytesPerResponse)),
      serviceCpuUs: median(group.map((x) => x.serviceCpuUs)),
      bytesRatio: ratio((x) => x.bytesPerResponse),
      serviceCpuRatio: ratio((x) => x.serviceCpuUs),
      rpsRatio: ratio((x) => x.rps),
    });
  }
  return rows;
}

const keyOf = (m: { scale: string; target: TargetName; concurrency: number }) => `${m.scale}|${m.target}|${m.concurrency}`;

/**
 * The share of the PK ceiling of each endpoint cell whose measurements all have a paired ceiling:
 * the median over runs of req/s over the ceiling's req/s right after it. The host's speed drifts
 * by tens of percent over minutes; a pair taken back to back shares its state.
 */
function pairedPkShares(groups: Map<string, Measurement[]>): Map<string, number> {
  const shares = new Map<string, number>();
  for (const [key, list] of groups) {
    if (list.every((m) => m.pairedPkCeilingRps !== undefined)) shares.set(key, median(list.map((m) => m.rps / m.pairedPkCeilingRps!)));
  }
  return shares;
}

/**
 * p50 on the larger dataset over p50 on the smaller: the median over runs of each run's ratio (the
 * bench measures a cell on both datasets back to back), else the ratio of the medians.
 */
function p50Growth(larger: readonly Measurement[], smaller: readonly Measurement[]): number | null {
  if (smaller.length === 0) return null;
  const ratios = larger.flatMap((m) => smaller.filter((b) => b.run === m.run).map((b) => m.latencyMs.p50 / b.latencyMs.p50));
  if (ratios.length === larger.length) return median(ratios);
  return median(larger.map((m) => m.latencyMs.p50)) / median(smaller.map((m) => m.latencyMs.p50));
}

export function aggregate(measurements: readonly Measurement[], scales: readonly string[]): AggregateRow[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    if (m.paired) continue;
    groups.set(keyOf(m), [...(groups.get(keyOf(m)) ?? []), m]);
  }
  const pairedShares = pairedPkShares(groups);
  const rows: AggregateRow[] = [];
  for (const list of groups.values()) {
    const first = list[0]!;
    const statuses = sumCounts(list.map((m) => m.statuses));
    rows.push({
      scale: first.scale,
      target: first.target,
      route: TARGET_ROUTES[first.target],
      concurrency: first.concurrency,
      runs: list.length,
      rps: median(list.map((m) => m.rps)),
      p50Ms: median(list.map((m) => m.latencyMs.p50)),
      p99Ms: median(list.map((m) => m.latencyMs.p99)),
      p999Ms: median(list.map((m) => m.latencyMs.p999)),
      statuses,
      non2xx: Object.fromEntries(Object.entries(statuses).filter(([code]) => !code.startsWith('2'))),
      unexpected: list.reduce((n, m) => n + m.unexpected, 0),
      socketErrors: sumCounts(list.map((m) => m.socketErrors)),
      rssMb: median(list.map((m) => m.rssPeakMb)),
      serviceCpuUs: median(list.map((m) => m.cpuUsPerRequest?.service ?? NaN)),
      postgresCpuUs: median(list.map((m) => m.cpuUsPerRequest?.postgres ?? NaN)),
      loadGeneratorCpuUs: median(list.map((m) => m.cpuUsPerRequest?.loadGenerator ?? NaN)),
      ofJsonCeiling: NaN,
      ofPkCeiling: NaN,
      p50Growth: null,
    });
  }
  const find = (scale: string, target: TargetName, concurrency: number) =>
    rows.find((r) => r.scale === scale && r.target === target && r.concurrency === concurrency);
  const larger = scales[scales.length - 1];
  const smaller = scales.length > 1 ? scales[0] : undefined;
  for (const row of rows) {
    row.ofJsonCeiling = row.rps / (find(row.scale, 'ceiling-json', row.concurrency)?.rps ?? NaN);
    row.ofPkCeiling = pairedShares.get(keyOf(row)) ?? row.rps / (find(row.scale, 'ceiling-pk', row.concurrency)?.rps ?? NaN);
    if (smaller && row.scale === larger)
      row.p50Growth = p50Growth(groups.get(keyOf(row)) ?? [], groups.get(keyOf({ ...row, scale: smaller })) ?? []);
  }
  const order = (t: TargetName) => Object.keys(TARGET_ROUTES).indexOf(t);
  return rows.sort(
    (a, b) => scales.indexOf(b.scale) - scales.indexOf(a.scale) || order(a.target) - order(b.target) || a.concurrency - b.concurrency,
  );
}

// ---- Markdown ---------------------------------------------------------------------------

const fmt = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '–');
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)}%` : '–');
const counts = (c: Record<string, number>) =>
  Object.keys(c).length === 0
    ? '0'
    : Object.entries(c)
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');

export function markdown(report: BenchReport): string {
  const scales = report.datasets.map((d) => d.scale);
  const lines: string[] = [
    `# Benchmark: ${report.backend}${report.options.schema === 'mirror' ? " on the mirror node's schema (served by a SELECT-only role, migrations off)" : ''}, ${scales.join(' vs ')}`,
    '',
    `Run ${report.startedAt} – ${report.finishedAt} on ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGb} GiB, Node ${report.machine.node}.`,
    `Each measurement: ${report.options.durationSeconds} s of autocannon over loopback (keep-alive connections = concurrency), ` +
      `${report.options.runs} run(s), medians shown; the service runs in a child process ` +
      `(${(report.options.workers ?? 1) > 1 ? `${report.options.workers} cluster workers sharing the port, each` : 'one process'} with ` +
      `${report.options.pool ? `a pool of ${report.options.pool} connections` : 'the default pool'}); ` +
      `latencies cover every response of the mix (2xx and the intended 400/404 share); the request each connection ` +
      `has in flight when the time is up is not counted, which flatters an endpoint that completes few requests. ` +
      `"of PK ceiling" is the median over runs of an endpoint's req/s over the PK ceiling's req/s measured right after it ` +
      `at the same concurrency (for ${pairSeconds(report.options.durationSeconds)} s): the host's speed drifts between measurements minutes apart, ` +
      `a pair shares it; the ceiling's own row is measured in its turn, as every endpoint. "of JSON ceiling" divides the medians. ` +
      `Each cell is measured on every dataset in turn, back to back; the growth of p50 is the median over runs of each run's ratio.`,
    '',
    '## Datasets',
    '',
    '| scale | rows | load | rows/s (generate + COPY) | indexes | analyze |',
    '|---|---:|---|---:|---:|---:|',
    ...report.datasets.map(
      (d) =>
        `| ${d.scale} | ${d.totalRows.toLocaleString('en-US')} | ${d.load.backend} | ${Math.round(d.load.rowsPerSecond).toLocaleString('en-US')} | ${fmt(d.load.indexSeconds)} s | ${fmt(d.load.analyzeSeconds)} s |`,
    ),
  ];
  for (const scale of [...scales].reverse()) {
    const rows = report.results.filter((r) => r.scale === scale);
    const growth = scale === scales[scales.length - 1] && scales.length > 1;
    lines.push(
      '',
      `## ${scale}`,
      '',
      `| endpoint | conc. | req/s | p50 ms | p99 ms | p99.9 ms | non-2xx by status | unexpected | socket errors | of JSON ceiling | of PK ceiling | CPU µs/req service | CPU µs/req PostgreSQL | CPU µs/req load generator | RSS MB${growth ? ` | p50 ${scale}/${scales[0]}` : ''} |`,
      `|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:${growth ? '|---:' : ''}|`,
      ...rows.map(
        (r) =>
          `| ${r.target} | ${r.concurrency} | ${fmt(r.rps, 0)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ${fmt(r.p999Ms, 2)} | ${counts(r.non2xx)} | ${r.unexpected} | ${counts(r.socketErrors)} | ${pct(r.ofJsonCeiling)} | ${pct(r.ofPkCeiling)} | ${fmt(r.serviceCpuUs, 0)} | ${fmt(r.postgresCpuUs, 0)} | ${fmt(r.loadGeneratorCpuUs, 0)} | ${fmt(r.rssMb, 0)}${growth ? ` | ${r.p50Growth === null ? '–' : `×${fmt(r.p50Growth, 2)}`}` : ''} |`,
      ),
    );
  }
  if (report.compression?.length) {
    const c = report.compression[0]!;
    lines.push(
      '',
      `## Compression (${c.scale}, ${c.concurrency} connections)`,
      '',
      `Each endpoint's mix with no Accept-Encoding, then \`gzip\`, then \`br\`, ${c.rounds} rounds in turn; bytes are those received per response ` +
        `(headers included), CPU the service's per request. The ratios are medians over rounds of each round's value over the identity ` +
        `measurement of the same round, so they hold across the host's drift; absolute figures vary from run to run.`,
      '',
      '| endpoint | encoding | bytes/response | × identity | CPU µs/req service | × identity | req/s | × identity |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...report.compression.map(
        (r) =>
          `| ${r.target} | ${r.encoding} | ${fmt(r.bytesPerResponse, 0)} | ${fmt(r.bytesRatio, 2)} | ${fmt(r.serviceCpuUs, 0)} | ${fmt(r.serviceCpuRatio, 2)} | ${fmt(r.rps, 0)} | ${fmt(r.rpsRatio, 2)} |`,
      ),
    );
  }
  if (report.hot?.length) lines.push(hotMarkdown(report.hot, report.options.durationSeconds));
  lines.push('', '## Request mixes', '');
  for (const [target, kinds] of Object.entries(report.mixes[scales[scales.length - 1]!] ?? {})) {
    lines.push(
      `- **${target}** (${TARGET_ROUTES[target as TargetName]}): ${Object.entries(kinds)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
  }
  lines.push(
    '',
    `The ceilings (${CEILING_TARGETS.join(', ')}) are routes the bench adds to the same process; \`serve\` never has them.`,
    '',
  );
  return lines.join('\n');
}

// ---- SVG --------------------------------------------------------------------------------

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948'];

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= v)!;
}

/** One grouped bar chart: a group per target, a bar per concurrency. */
function panel(
  title: string,
  rows: AggregateRow[],
  value: (r: AggregateRow) => number,
  y0: number,
  width: number,
  height: number,
  concurrency: number[],
): string {
  const targets = [...new Set(rows.map((r) => r.target))];
  const left = 70;
  const top = y0 + 30;
  const plotW = width - left - 20;
  const plotH = height - 90;
  const max = niceMax(Math.max(...rows.map(value).filter(Number.isFinite), 0));
  const groupW = plotW / Math.max(1, targets.length);
  const barW = (groupW * 0.8) / Math.max(1, concurrency.length);
  const parts = [`<text x="${left}" y="${y0 + 18}" font-size="15" font-weight="bold">${escapeXml(title)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${y + 4}" font-size="11" text-anchor="end">${+((max * i) / 4).toPrecision(3)}</text>`);
  }
  targets.forEach((target, t) => {
    concurrency.forEach((c, k) => {
      const row = rows.find((r) => r.target === target && r.concurrency === c);
      const v = row ? value(row) : NaN;
      if (!Number.isFinite(v)) return;
      const h = (plotH * Math.min(v, max)) / max;
      const x = left + t * groupW + groupW * 0.1 + k * barW;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[k % COLORS.length]}"><title>${escapeXml(`${target} c=${c}: ${+v.toPrecision(4)}`)}</title></rect>`,
      );
    });
    const cx = left + t * groupW + groupW / 2;
    parts.push(`<text x="${cx}" y="${top + plotH + 16}" font-size="11" text-anchor="middle">${escapeXml(target)}</text>`);
  });
  return parts.join('\n');
}

export function svgChart(report: BenchReport): string {
  const scales = [...report.datasets.map((d) => d.scale)].reverse();
  const width = 1100;
  const panelH = 300;
  const { concurrency } = report.options;
  const body: string[] = [];
  let y = 10;
  for (const scale of scales) {
    const rows = report.results.filter((r) => r.scale === scale);
    body.push(panel(`${scale} (${report.backend}): requests per second`, rows, (r) => r.rps, y, width, panelH, concurrency));
    y += panelH;
    body.push(panel(`${scale} (${report.backend}): p99 latency, ms`, rows, (r) => r.p99Ms, y, width, panelH, concurrency));
    y += panelH;
  }
  const legend = concurrency
    .map(
      (c, k) =>
        `<rect x="${70 + k * 130}" y="${y + 5}" width="14" height="14" fill="${COLORS[k % COLORS.length]}"/><text x="${90 + k * 130}" y="${y + 17}" font-size="12">${c} connection${c === 1 ? '' : 's'}</text>`,
    )
    .join('\n');
  const height = y + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...body,
    legend,
    '</svg>',
    '',
  ].join('\n');
}

/** The configurations a hot mix is measured in. */
export const HOT_CONFIGS = ['no cache', 'cache', 'cache + Redis, 2 processes'] as const;
export type HotConfig = (typeof HOT_CONFIGS)[number];

export interface HotMeasurement extends LoadResult {
  scale: string;
  target: TargetName;
  config: HotConfig;
  concurrency: number;
  run: number;
  /** req/s of the same service's PK ceiling measured right after, at the same concurrency */
  pairedPkCeilingRps: number;
  /** during the measurement: responses from the cache over cache lookups; NaN without a cache */
  hitRatio: number;
  /** of the hits, the share that came from Redis (another process's store) */
  redisHitShare: number;
  redisErrors: number;
}

export interface HotRow {
  scale: string;
  target: TargetName;
  config: HotConfig;
  concurrency: number;
  runs: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  pkCeilingRps: number;
  ofPkCeiling: number;
  hitRatio: number;
  redisHitShare: number;
  non2xx: Record<string, number>;
  unexpected: number;
  socketErrors: Record<string, number>;
  redisErrors: number;
}

export function aggregateHot(measurements: readonly HotMeasurement[]): HotRow[] {
  const groups = new Map<string, HotMeasurement[]>();
  for (const m of measurements) {
    const key = `${m.scale}|${m.target}|${m.concurrency}|${m.config}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((list) => {
    const first = list[0]!;
    const statuses = sumCounts(list.map((m) => m.statuses));
    return {
      scale: first.scale,
      target: first.target,
      config: first.config,
      concurrency: first.concurrency,
      runs: list.length,
      rps: median(list.map((m) => m.rps)),
      p50Ms: median(list.map((m) => m.latencyMs.p50)),
      p99Ms: median(list.map((m) => m.latencyMs.p99)),
      pkCeilingRps: median(list.map((m) => m.pairedPkCeilingRps)),
      ofPkCeiling: median(list.map((m) => m.rps / m.pairedPkCeilingRps)),
      hitRatio: median(list.map((m) => m.hitRatio)),
      redisHitShare: median(list.map((m) => m.redisHitShare)),
      non2xx: Object.fromEntries(Object.entries(statuses).filter(([c]) => !c.startsWith('2'))),
      unexpected: list.reduce((n, m) => n + m.unexpected, 0),
      socketErrors: sumCounts(list.map((m) => m.socketErrors)),
      redisErrors: list.reduce((n, m) => n + m.redisErrors, 0),
    };
  });
}

export function hotMarkdown(rows: readonly HotRow[], durationSeconds: number): string {
  if (rows.length === 0) return '';
  const lines = [
    '',
    `## Hot mixes (${rows[0]!.scale})`,
    '',
    `A few popular URLs per endpoint drawn with Zipf weights (bench/mixes.ts \`buildHotMixes\`), measured on a service without the ` +
      `response cache, with it (in the process), and as two processes sharing it through Redis. "of PK ceiling" divides by the PK ` +
      `ceiling of the same service measured right after (for ${pairSeconds(durationSeconds)} s; with two processes, theirs); the hit ratio ` +
      `counts the cache's lookups during the measurement, "from Redis" the hits another process had stored.`,
    '',
    '| endpoint | conc. | configuration | req/s | of PK ceiling | PK ceiling req/s | p50 ms | p99 ms | hit ratio | from Redis | non-2xx | unexpected | socket errors | Redis errors |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|',
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.concurrency} | ${r.config} | ${fmt(r.rps, 0)} | ${pct(r.ofPkCeiling)} | ${fmt(r.pkCeilingRps, 0)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ${Number.isFinite(r.hitRatio) ? `${(r.hitRatio * 100).toFixed(1)}%` : '–'} | ${pct(r.redisHitShare)} | ${counts(r.non2xx)} | ${r.unexpected} | ${counts(r.socketErrors)} | ${r.redisErrors} |`,
    ),
  ];
  return lines.join('\n') + '\n';
}
