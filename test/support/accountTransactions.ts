/** Fixtures of GET /api/v1/accounts/{id} transaction lists for account 0.0.8, and requests that page through them. */
import assert from 'node:assert/strict';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import type { Harness } from '../../tools/testApp/harness.js';
import { get, type JsonResponse } from './harness.js';

const B = 1_650_000_000_000_000_000n;
export const SECOND = 1_000_000_000n;
export const ns = (k: number) => B + BigInt(k) * SECOND;
export const ts = (k: number) => formatTimestamp(ns(k))!;
export const ED25519 = '60beee88a4c4a0f5a9d5ad8e6b17ac5ce0d54f5bd5e3cd2eb0dae0bfb1a2b5b7';
export const HASH = Buffer.from(Array.from({ length: 48 }, (_, i) => 100 + i));

type Tx = { consensus_timestamp: string };

/** 0.0.8 in one-second versions until k = `upto`, then current: a `ne` timestamp rules out only the version holding it. */
export const account8 = (upto: number) => [
  ...Array.from({ length: upto }, (_, k) => ({ num: 8, timestamp_range: `[${ns(k)},${ns(k + 1)})` })),
  { num: 8, timestamp_range: `[${ns(upto)},)` },
];
export const timestampsOf = (res: JsonResponse) => res.body.transactions.map((t: Tx) => t.consensus_timestamp);

/** Transactions of 0.0.8 from each source, and some that must not be listed. */
export function sources() {
  const quiet = { nodeAccountId: '0.0.3', charged_tx_fee: 0 };
  return {
    accounts: [...account8(30), { num: 9 }],
    transactions: [
      { consensus_timestamp: ns(10), payerAccountId: '0.0.8', nodeAccountId: '0.0.3' }, // payer (and fee transfer)
      { consensus_timestamp: ns(11), payerAccountId: '0.0.8', nonce: 1, ...quiet }, // synthetic child without parent
      { consensus_timestamp: ns(12), payerAccountId: '0.0.8', nonce: 1, parent_consensus_timestamp: ns(10), ...quiet },
      { consensus_timestamp: ns(13), payerAccountId: '0.0.8', nonce: 1, type: 11, ...quiet }, // account create
      { consensus_timestamp: ns(14), payerAccountId: '0.0.8', nonce: 1, type: 15, ...quiet }, // account update
      { consensus_timestamp: ns(15), payerAccountId: '0.0.9', type: 36, ...quiet }, // entity_transaction
      {
        consensus_timestamp: ns(16),
        payerAccountId: '0.0.9',
        type: 37,
        ...quiet,
        token_transfer_list: [{ token_id: '0.0.5001', account: '0.0.8', amount: 1 }],
      },
      {
        consensus_timestamp: ns(17),
        payerAccountId: '0.0.9',
        type: 999,
        ...quiet,
        transfers: [
          { account: '0.0.9', amount: -1 },
          { account: '0.0.8', amount: 1 },
        ],
      },
      { consensus_timestamp: ns(18), payerAccountId: '0.0.9', ...quiet }, // not involving 0.0.8
    ],
    entityTransactions: [{ consensus_timestamp: ns(15), entity_id: '0.0.8', payer_account_id: '0.0.9', result: 22, type: 36 }],
  };
}

/** A crypto transfer of 0.0.8 at k=19 whose transaction row is missing. */
export async function orphanTransfer(h: Harness) {
  await h.db.query('insert into crypto_transfer (entity_id, consensus_timestamp, amount, payer_account_id) values (8, $1, 5, 9)', [ns(19)]);
}

export const LISTED = [17, 16, 15, 14, 13, 12, 10].map(ts);

/** 65 transactions of 0.0.8 (`expected`), cycling through the four sources, between transactions of others. */
export function many(count = 65) {
  const transactions: Record<string, unknown>[] = [];
  const entityTransactions: Record<string, unknown>[] = [];
  const quiet = { nodeAccountId: '0.0.3', charged_tx_fee: 0 };
  for (let i = 0; i < count; i++) {
    const k = 2 * i;
    transactions.push({ consensus_timestamp: ns(k + 1), payerAccountId: '0.0.9', ...quiet });
    switch (i % 4) {
      case 0:
        transactions.push({ consensus_timestamp: ns(k), payerAccountId: '0.0.8', ...quiet });
        break;
      case 1:
        transactions.push({ consensus_timestamp: ns(k), payerAccountId: '0.0.9', ...quiet });
        entityTransactions.push({ consensus_timestamp: ns(k), entity_id: '0.0.8', payer_account_id: '0.0.9', result: 22, type: 14 });
        break;
      case 2:
        transactions.push({
          consensus_timestamp: ns(k),
          payerAccountId: '0.0.9',
          nodeAccountId: '0.0.3',
          transfers: [
            { account: '0.0.8', amount: 1 },
            { account: '0.0.9', amount: -1 },
          ],
        });
        break;
      default:
        transactions.push({
          consensus_timestamp: ns(k),
          payerAccountId: '0.0.9',
          ...quiet,
          token_transfer_list: [{ token_id: '0.0.5001', account: '0.0.8', amount: 2 }],
        });
    }
  }
  return {
    setup: { accounts: [...account8(2 * count + 10), { num: 9 }], transactions, entityTransactions },
    expected: Array.from({ length: count }, (_, i) => ts(2 * i)),
  };
}

/** Lists the transactions of 0.0.8 through `harness`, expecting 200, and pages through next links. */
export function accountTransactionPages(harness: () => Harness) {
  const list = async (qs: string) => {
    const res = await get(harness(), `/api/v1/accounts/0.0.8?${qs}`);
    assert.equal(res.status, 200, `${qs}: ${res.text}`);
    return res;
  };

  /** Follows the next links from `url`, checking each Link header; returns every listed timestamp. */
  const pageThrough = async (url: string, maxPages = 200) => {
    const seen: string[] = [];
    let next: string | null = url;
    for (let pages = 0; next; pages++) {
      assert.ok(pages < maxPages, 'too many pages');
      const res = await get(harness(), next);
      assert.equal(res.status, 200, `${next}: ${res.text}`);
      seen.push(...timestampsOf(res));
      next = res.body.links.next;
      assert.equal(res.headers.link, next ? `<${next}>; rel="next"` : undefined);
    }
    return seen;
  };

  return { list, pageThrough };
}
