/**
 * The answers of two apps to the same URLs, byte for byte: status, content type and body. The URLs
 * are a sample drawn from the expected rows: blocks (the list, by number and by hash) for the
 * transaction tables, accounts (by id, by EVM address, as of a past time) and their NFTs for the
 * state tables.
 */
import type { FastifyInstance } from 'fastify';
import { formatEntityId } from '../../src/domain/entityId.js';
import type { ColumnValues } from '../../src/ledgerSetup/insert.js';

/** A URL and the section whose state it shows (null: the transaction tables') */
export interface SampledUrl {
  url: string;
  section: string | null;
}

export interface AnswerDifference extends SampledUrl {
  detail: string;
}

/**
 * The blocks list (both orders), `picks` blocks spread evenly from the first to the last by number
 * (by default the first, the middle and the last) and the last `hashes` of those by hash.
 */
export function blockUrls(recordFiles: readonly ColumnValues[], picks = 3, hashes = 1): SampledUrl[] {
  const urls = ['/api/v1/blocks', '/api/v1/blocks?order=asc&limit=100'];
  const chosen = spread(recordFiles, picks);
  for (const file of chosen) urls.push(`/api/v1/blocks/${file.index}`);
  for (const file of chosen.slice(-hashes)) urls.push(`/api/v1/blocks/0x${file.hash}`);
  return [...new Set(urls)].map((url) => ({ url, section: null }));
}

/** `count` items spread evenly over `items`, the first and the last included (all of them when there are fewer). */
export function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count === 1) return [items[items.length - 1]!];
  return Array.from({ length: count }, (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))]!);
}

/**
 * Two genesis accounts; every account and each one's NFTs (at most `max` accounts), hollow ones by
 * their EVM address too; a past state of the updated ones.
 */
export function accountUrls(
  entities: readonly ColumnValues[],
  history: readonly ColumnValues[],
  max: number,
  sectionOf: (id: bigint) => string,
): SampledUrl[] {
  // genesis accounts the stream pays from and to but never creates: no row, as the importer keeps them
  const urls: SampledUrl[] = [2n, 98n].map((num) => ({ url: `/api/v1/accounts/0.0.${num}`, section: sectionOf(num) }));
  for (const e of entities.filter((e) => e.type === 'ACCOUNT').slice(0, max)) {
    const id = e.id as bigint;
    const section = sectionOf(id);
    urls.push({ url: `/api/v1/accounts/${formatEntityId(id)}`, section });
    urls.push({ url: `/api/v1/accounts/${formatEntityId(id)}/nfts`, section });
    if (e.evm_address) urls.push({ url: `/api/v1/accounts/0x${Buffer.from(e.evm_address as Uint8Array).toString('hex')}`, section });
  }
  for (const h of history.slice(0, max)) {
    const lower = /^\[(\d+),/.exec(String(h.timestamp_range))![1]!;
    const id = h.id as bigint;
    urls.push({ url: `/api/v1/accounts/${formatEntityId(id)}?timestamp=${lower.slice(0, -9)}.${lower.slice(-9)}`, section: sectionOf(id) });
  }
  return urls;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 40);
  return `at byte ${i}: expected …${a.slice(from, i + 80)}… ingested …${b.slice(from, i + 80)}…`;
}

export async function compareAnswers(
  expected: FastifyInstance,
  ingested: FastifyInstance,
  urls: readonly SampledUrl[],
): Promise<AnswerDifference[]> {
  const differences: AnswerDifference[] = [];
  for (const { url, section } of urls) {
    const [a, b] = [await expected.inject({ method: 'GET', url }), await ingested.inject({ method: 'GET', url })];
    if (a.statusCode !== b.statusCode) {
      differences.push({
        url,
        section,
        detail: `status expected ${a.statusCode}, ingested ${b.statusCode}; ${firstDifference(a.body, b.body)}`,
      });
    } else if (a.headers['content-type'] !== b.headers['content-type']) {
      differences.push({
        url,
        section,
        detail: `content type expected ${a.headers['content-type']}, ingested ${b.headers['content-type']}`,
      });
    } else if (a.body !== b.body) {
      differences.push({ url, section, detail: firstDifference(a.body, b.body) });
    }
  }
  return differences;
}
