import type { IngestProgress } from './ingester.js';

/** Consensus times as people read them: ISO-8601 with nanoseconds (`2022-07-13T08:46:08.041986003Z`). */
export function formatNanos(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const fraction = (((nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** `files 2, records 3, newest 2022-07-13T08:46:11.304284004Z, lag 12s` */
export function progressLine(p: IngestProgress, nowMs = Date.now()): string {
  const lag = p.newest === null ? '-' : `${Math.max(0, Math.round(nowMs / 1000 - Number(p.newest / 1_000_000_000n)))}s`;
  return `files ${p.files}, records ${p.records}, newest ${p.newest === null ? '-' : formatNanos(p.newest)}, lag ${lag}`;
}

/** What `lqs ingest` prints when it ends: `ingested 2 files, 3 records; newest 2022-07-13T08:46:11.304284004Z` */
export function ingestSummary(p: IngestProgress): string {
  const newest = p.newest === null ? 'the database holds no file yet' : `newest ${formatNanos(p.newest)}`;
  const balances = p.balanceFiles ? `, ${p.balanceFiles} balance file${p.balanceFiles === 1 ? '' : 's'}` : '';
  return `ingested ${p.files} file${p.files === 1 ? '' : 's'}, ${p.records} record${p.records === 1 ? '' : 's'}${balances}; ${newest}`;
}
