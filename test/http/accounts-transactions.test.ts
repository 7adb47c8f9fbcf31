import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { get, useHarness, type JsonResponse } from '../support/harness.js';
import type { Harness } from '../../tools/conformance/harness.js';
import { typedPageTuning } from '../../src/routes/accounts/transactions/typedPage.js';
import { transferJoinTuning, type TransferJoin } from '../../src/routes/accounts/transactions/queries.js';

const B = 1_650_000_000_000_000_000n;
const SECOND = 1_000_000_000n;
const ns = (k: number) => B + BigInt(k) * SECOND;
const ts = (k: number) => formatTimestamp(ns(k))!;
const ED25519 = '60beee88a4c4a0f5a9d5ad8e6b17ac5ce0d54f5bd5e3cd2eb0dae0bfb1a2b5b7';
const HASH = Buffer.from(Array.from({ length: 48 }, (_, i) => 100 + i));

type Tx = { consensus_timestamp: string };

/** 0.0.8 in one-second versions until k = `upto`, then current: a `ne` timestamp rules out only the version holding it. */
const account8 = (upto: number) => [
  ...Array.from({ length: upto }, (_, k) => ({ num: 8, timestamp_range: `[${ns(k)},${ns(k + 1)})` })),
  { num: 8, timestamp_range: `[${ns(upto)},)` },
];
const timestampsOf = (res: JsonResponse) => res.body.transactions.map((t: Tx) => t.consensus_timestamp);

/** Transactions of 0.0.8 from each source, and some that must not be listed. */
function sources() {
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
async function orphanTransfer(h: Harness) {
  await h.db.query('insert into crypto_transfer (entity_id, consensus_timestamp, amount, payer_account_id) values (8, $1, 5, 9)', [ns(19)]);
}

const LISTED = [17, 16, 15, 14, 13, 12, 10].map(ts);

/** 65 transactions of 0.0.8 (`expected`), cycling through the four sources, between transactions of others. */
function many(count = 65) {
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

describe('account transactions', () => {
  const harness = useHarness();
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

  it('renders every field of a transaction', async () => {
    const h = harness();
    await h.prepare({
      accounts: [{ num: 8 }, { num: 9 }],
      transactions: [
        {
          consensus_timestamp: ns(1),
          valid_start_timestamp: ns(1) - 5n,
          payerAccountId: '0.0.8',
          nodeAccountId: '0.0.3',
          entity_id: '0.0.9',
          type: 14,
          result: 22,
          charged_tx_fee: 99,
          max_fee: 5000,
          valid_duration_seconds: 120,
          scheduled: true,
          high_volume: true,
          high_volume_pricing_multiplier: 4,
          batch_key: '1220' + ED25519,
          transaction_hash: HASH.toString('hex'),
          transaction_bytes: 'abc',
          max_custom_fees: [
            { accountId: { accountNum: 10 }, fees: [{ amount: 100, denominatingTokenId: { tokenNum: 5001 } }, { amount: 7 }] },
          ],
          nft_transfer: [
            { receiver_account_id: '0.0.9', sender_account_id: '0.0.8', serial_number: 3, token_id: '0.0.6001', is_approval: true },
            { receiver_account_id: '0.0.8', sender_account_id: null, serial_number: 4, token_id: '0.0.6001' },
          ],
          transfers: [
            { account: '0.0.9', amount: 5, is_approval: true },
            { account: '0.0.8', amount: -1 },
            { account: '0.0.8', amount: -5 },
          ],
          token_transfer_list: [
            { token_id: '0.0.5002', account: '0.0.9', amount: 3 },
            { token_id: '0.0.5001', account: '0.0.9', amount: 2 },
            { token_id: '0.0.5001', account: '0.0.8', amount: -2, is_approval: true },
            { token_id: '0.0.5002', account: '0.0.8', amount: -3 },
          ],
        },
        {
          consensus_timestamp: ns(2),
          payerAccountId: '0.0.800',
          transfers: [
            { account: '0.0.800', amount: -50 },
            { account: '0.0.8', amount: 50 },
          ],
        },
        {
          consensus_timestamp: ns(3),
          payerAccountId: '0.0.9',
          type: 999,
          result: 11,
          transfers: [
            { account: '0.0.9', amount: -1 },
            { account: '0.0.8', amount: 1 },
          ],
        },
        { consensus_timestamp: ns(4), payerAccountId: '0.0.8', nonce: 2, parent_consensus_timestamp: ns(1) },
      ],
      stakingRewardTransfers: [
        { consensus_timestamp: ns(2), account_id: '0.0.9', amount: 20 },
        { consensus_timestamp: ns(2), account_id: '0.0.8', amount: 30 },
        { consensus_timestamp: ns(3), account_id: '0.0.8', amount: 40 },
      ],
    });
    await h.db.query(`update transaction set memo = 'memo'::bytea where consensus_timestamp = $1`, [ns(1)]);
    await h.db.query(
      `update transaction set max_fee = null, valid_duration_seconds = null, transaction_hash = null, transaction_bytes = null,
         charged_tx_fee = null, node_account_id = null where consensus_timestamp = $1`,
      [ns(4)],
    );

    const res = await list('order=asc');
    const [first, second, third, fourth] = res.body.transactions;
    assert.deepEqual(first, {
      batch_key: { _type: 'ED25519', key: ED25519 },
      bytes: 'YWJj',
      charged_tx_fee: 99,
      consensus_timestamp: ts(1),
      entity_id: '0.0.9',
      high_volume: true,
      high_volume_pricing_multiplier: 4,
      max_custom_fees: [
        { account_id: '0.0.10', amount: 100, denominating_token_id: '0.0.5001' },
        { account_id: '0.0.10', amount: 7, denominating_token_id: null },
      ],
      max_fee: '5000',
      memo_base64: 'bWVtbw==',
      name: 'CRYPTOTRANSFER',
      nft_transfers: [
        { is_approval: true, receiver_account_id: '0.0.9', sender_account_id: '0.0.8', serial_number: 3, token_id: '0.0.6001' },
        { is_approval: false, receiver_account_id: '0.0.8', sender_account_id: null, serial_number: 4, token_id: '0.0.6001' },
      ],
      node: '0.0.3',
      nonce: 0,
      parent_consensus_timestamp: null,
      result: 'SUCCESS',
      scheduled: true,
      staking_reward_transfers: [],
      token_transfers: [
        { token_id: '0.0.5001', account: '0.0.8', amount: -2, is_approval: true },
        { token_id: '0.0.5001', account: '0.0.9', amount: 2, is_approval: false },
        { token_id: '0.0.5002', account: '0.0.8', amount: -3, is_approval: false },
        { token_id: '0.0.5002', account: '0.0.9', amount: 3, is_approval: false },
      ],
      transaction_hash: HASH.toString('base64'),
      transaction_id: '0.0.8-1650000000-999999995',
      transfers: [
        { account: '0.0.8', amount: -5, is_approval: false },
        { account: '0.0.8', amount: -1, is_approval: false },
        { account: '0.0.9', amount: 5, is_approval: true },
      ],
      valid_duration_seconds: '120',
      valid_start_timestamp: formatTimestamp(ns(1) - 5n),
    });
    assert.deepEqual(second.staking_reward_transfers, [
      { account: '0.0.9', amount: 20 },
      { account: '0.0.8', amount: 30 },
    ]);
    assert.deepEqual(third.staking_reward_transfers, [], 'rewards only where 0.0.800 pays');
    assert.equal(third.name, 'UNKNOWN');
    assert.equal(third.result, 'DUPLICATE_TRANSACTION');
    assert.equal(third.batch_key, null);
    assert.deepEqual(third.max_custom_fees, []);
    assert.deepEqual(third.nft_transfers, []);
    assert.equal(third.memo_base64, null);
    assert.equal(fourth.nonce, 2);
    assert.equal(fourth.parent_consensus_timestamp, ts(1));
    for (const field of ['max_fee', 'valid_duration_seconds', 'transaction_hash', 'bytes', 'charged_tx_fee', 'node']) {
      assert.equal(fourth[field], null, field);
    }
  });

  it('lists the transactions of all four sources once each, dropping synthetic children without a parent', async () => {
    await harness().prepare(sources());
    await orphanTransfer(harness());
    assert.deepEqual(timestampsOf(await list('')), LISTED);
    assert.deepEqual(timestampsOf(await list('order=asc')), [...LISTED].reverse());
    assert.deepEqual(timestampsOf(await list('order=asc&limit=100')), [...LISTED].reverse());
  });

  it('lets candidates without a transaction row drop out of the page', async () => {
    await harness().prepare(sources());
    await orphanTransfer(harness());
    const res = await list('limit=1');
    assert.deepEqual(timestampsOf(res), [], 'the orphan transfer took the only place');
    assert.equal(res.body.links.next, null);
    assert.deepEqual(
      timestampsOf(await list('limit=1&transactiontype=cryptotransfer')),
      [ts(12)],
      'a type filter needs the transaction row',
    );
  });

  it('filters by transaction type, in any case, through the transfers’ transactions', async () => {
    await harness().prepare(sources());
    const cases: [string, number[]][] = [
      ['transactiontype=cryptotransfer', [12, 10]],
      ['transactiontype=CRYPTOCREATEACCOUNT&transactiontype=CryptoUpdateAccount', [14, 13]],
      ['transactiontype=tokenupdate', [15]],
      ['transactiontype=tokenmint', [16]],
      ['transactiontype=unknown', [17]],
      ['transactiontype=node', []],
      ['transactiontype=node&transactiontype=tokenupdate&transactiontype=UNKNOWN', [17, 15]],
      ['transactiontype=contractcall', []],
    ];
    for (const [qs, expected] of cases) assert.deepEqual(timestampsOf(await list(qs)), expected.map(ts), qs);
  });

  it('bounds the list with every timestamp operator', async () => {
    await harness().prepare(sources());
    const cases: [string, number[]][] = [
      [`timestamp=${ts(12)}`, [12]],
      [`timestamp=eq:${ts(13)}`, [13]],
      [`timestamp=${ts(12)}&timestamp=${ts(13)}`, []],
      [`timestamp=${ts(12)}&timestamp=${ts(12)}`, [12]],
      [`timestamp=ne:${ts(12)}`, [17, 16, 15, 14, 13, 10]],
      [`timestamp=gt:${ts(12)}`, [17, 16, 15, 14, 13]],
      [`timestamp=gte:${ts(12)}`, [17, 16, 15, 14, 13, 12]],
      [`timestamp=lt:${ts(13)}`, [12, 10]],
      [`timestamp=lte:${ts(13)}`, [13, 12, 10]],
      [`timestamp=gt:${ts(10)}&timestamp=lt:${ts(15)}&timestamp=ne:${ts(13)}`, [14, 12]],
      [`timestamp=gte:${ts(10)}&timestamp=gt:${ts(13)}&timestamp=lte:${ts(16)}`, [16, 15, 14]],
      [`timestamp=${ts(13)}&timestamp=gt:${ts(12)}`, [13]],
      [`timestamp=${ts(12)}&timestamp=gt:${ts(12)}`, []],
      [`timestamp=gte:${ts(10)}&timestamp=lte:${ts(12)}&order=asc`, [10, 12]],
    ];
    for (const [qs, expected] of cases) {
      const res = await list(qs);
      assert.deepEqual(timestampsOf(res), expected.map(ts), qs);
      assert.equal(res.body.links.next, null, qs);
    }
  });

  it('omits the transactions when asked, the last value winning', async () => {
    await harness().prepare(many().setup);
    for (const [qs, listed] of [
      ['transactions=false', false],
      ['transactions=FALSE&limit=1', false],
      ['transactions=false&transactions=true', true],
      ['transactions=true&transactions=false', false],
    ] as const) {
      const res = await list(qs);
      assert.equal(res.body.transactions.length > 0, listed, qs);
      assert.equal(res.body.links.next !== null, listed, qs);
      assert.equal(res.headers.link !== undefined, listed, qs);
    }
  });

  it('pages through a long list of mixed sources in both orders without gaps or repeats', async () => {
    const setup = many();
    await harness().prepare(setup.setup);
    assert.deepEqual(await pageThrough('/api/v1/accounts/0.0.8?limit=7'), [...setup.expected].reverse());
    assert.deepEqual(await pageThrough('/api/v1/accounts/0.0.8?limit=7&order=asc'), setup.expected);
    assert.deepEqual(await pageThrough('/api/v1/accounts/0.0.8?limit=13&order=asc'), setup.expected, 'a last page that is exactly full');

    const bounded = setup.expected.filter((t) => t >= ts(20) && t <= ts(100));
    assert.deepEqual(
      await pageThrough(`/api/v1/accounts/0.0.8?timestamp=gte:${ts(20)}&timestamp=lte:${ts(100)}&limit=5`),
      [...bounded].reverse(),
    );
    assert.deepEqual(
      await pageThrough(`/api/v1/accounts/0.0.8?timestamp=gte:${ts(20)}&timestamp=lte:${ts(100)}&limit=5&order=asc`),
      bounded,
    );
  });

  it('lists types through transfers in transactions others pay the same whether the walk finishes or a merge or probes complete it', async () => {
    const transactions: Record<string, unknown>[] = [];
    const expected: Record<string, string[]> = {
      CRYPTOTRANSFER: [],
      'TOKENMINT&transactiontype=CRYPTOTRANSFER': [],
      UNKNOWN: [],
      'UNKNOWN&transactiontype=TOKENMINT': [],
    };
    const quiet = { nodeAccountId: '0.0.3', charged_tx_fee: 0 };
    for (let i = 0; i < 60; i++) {
      const k = 2 * i;
      transactions.push({
        consensus_timestamp: ns(k + 1),
        payerAccountId: '0.0.9',
        ...quiet,
        transfers: [{ account: '0.0.10', amount: 1 }],
      });
      if (i % 3 === 1) {
        // a transfer to 0.0.8 in a transaction of another type: token mint, or types without a name
        const type = i % 2 === 0 ? 37 : 990 + (i % 4);
        transactions.push({
          consensus_timestamp: ns(k),
          payerAccountId: '0.0.9',
          type,
          ...quiet,
          transfers: [{ account: '0.0.8', amount: 1 }],
        });
        if (type === 37) expected['TOKENMINT&transactiontype=CRYPTOTRANSFER']!.push(ts(k));
        else expected.UNKNOWN!.push(ts(k));
        expected['UNKNOWN&transactiontype=TOKENMINT']!.push(ts(k));
        continue;
      }
      expected.CRYPTOTRANSFER!.push(ts(k));
      expected['TOKENMINT&transactiontype=CRYPTOTRANSFER']!.push(ts(k));
      if (i % 7 === 0) transactions.push({ consensus_timestamp: ns(k), payerAccountId: '0.0.8', ...quiet });
      else if (i % 3 === 0)
        transactions.push({
          consensus_timestamp: ns(k),
          payerAccountId: '0.0.9',
          ...quiet,
          transfers: [
            { account: '0.0.8', amount: 1 },
            { account: '0.0.9', amount: -1 },
          ],
        });
      else
        transactions.push({
          consensus_timestamp: ns(k),
          payerAccountId: '0.0.9',
          ...quiet,
          token_transfer_list: [{ token_id: '0.0.5001', account: '0.0.8', amount: 2 }],
        });
    }
    await harness().prepare({ accounts: [...account8(130), { num: 9 }, { num: 10 }], transactions });
    const saved = typedPageTuning.transferWalkLimit;
    const ways: (TransferJoin | null)[] = [null, 'merge', 'probe by account', 'probe by type'];
    const runs: [number, TransferJoin | null][] = [
      [saved, null],
      ...[3, 1].flatMap((walk) => ways.map((way): [number, TransferJoin | null] => [walk, way])),
    ];
    try {
      for (const [walkLimit, way] of runs) {
        typedPageTuning.transferWalkLimit = walkLimit;
        transferJoinTuning.forced = way;
        for (const [types, listed] of Object.entries(expected)) {
          for (const limit of [3, 7]) {
            const url = `/api/v1/accounts/0.0.8?transactiontype=${types}&limit=${limit}`;
            const context = `walk ${walkLimit}, ${way ?? 'cheapest way'}, ${types}, limit ${limit}`;
            assert.deepEqual(await pageThrough(url), [...listed].reverse(), context);
            assert.deepEqual(await pageThrough(`${url}&order=asc`), listed, `${context}, asc`);
          }
        }
      }
    } finally {
      typedPageTuning.transferWalkLimit = saved;
      transferJoinTuning.forced = null;
    }
  });

  it('builds the next link from the caller’s query', async () => {
    await harness().prepare(many().setup);
    let res = await list(`limit=2&transactionType=CRYPTOTRANSFER&timestamp=lte:${ts(200)}`);
    assert.equal(res.body.links.next, `/api/v1/accounts/0.0.8?limit=2&transactiontype=CRYPTOTRANSFER&timestamp=lt:${ts(126)}`);
    res = await get(
      harness(),
      `/api/v1/accounts/0x0000000000000000000000000000000000000008?order=asc&limit=2&timestamp=gt:${ts(0)}&timestamp=ne:${ts(4)}`,
    );
    assert.equal(
      res.body.links.next,
      `/api/v1/accounts/0x0000000000000000000000000000000000000008?order=asc&limit=2&timestamp=ne:${ts(4)}&timestamp=gt:${ts(6)}`,
    );
    res = await list(`order=asc&limit=2&timestamp=ne:${ts(4)}&timestamp=gt:${ts(0)}`);
    assert.equal(
      res.body.links.next,
      `/api/v1/accounts/0.0.8?order=asc&limit=2&timestamp=ne:${ts(4)}`,
      'a first value without a range operator blocks the append',
    );
    res = await list(`limit=2&timestamp=gte:${ts(124)}`);
    assert.equal(res.body.links.next, `/api/v1/accounts/0.0.8?limit=2&timestamp=gte:${ts(124)}&timestamp=lt:${ts(126)}`);
    res = await list(`limit=2&timestamp=gte:${ts(126)}`);
    assert.equal(res.body.links.next, null, 'the continuation range would be empty');
  });

  it('uses the start-up default limit and caps the limit at the live maximum', async () => {
    await harness().prepare(many().setup);
    assert.equal((await list('')).body.transactions.length, 25);
    let res = await list('limit=1000');
    assert.equal(res.body.transactions.length, 65);
    assert.equal(res.body.links.next, null);
    harness().config.response.limit.max = 10;
    res = await list('limit=50');
    assert.equal(res.body.transactions.length, 10);
    assert.match(res.body.links.next, /^\/api\/v1\/accounts\/0\.0\.8\?limit=50&timestamp=lt:/);
    res = await list('limit=3&limit=4');
    assert.equal(res.body.transactions.length, 4, 'the last limit wins');
  });

  it('binds an open range to the first transaction and now, at most the configured width wide', async () => {
    const setup = many();
    const h = harness();
    const bind = async () => {
      await h.prepare(setup.setup, { query: { bindTimestampRange: true, maxTransactionsTimestampRangeNs: 10n * SECOND } });
      h.clock.set(ns(200));
    };

    await bind();
    let res = await list('limit=3');
    assert.deepEqual(timestampsOf(res), [], 'no transaction in (now - 10 s, now]');
    assert.equal(res.body.links.next, `/api/v1/accounts/0.0.8?limit=3&timestamp=lt:${formatTimestamp(ns(190) + 1n)}`);
    res = await list('limit=3&order=asc');
    assert.deepEqual(timestampsOf(res), [ts(0), ts(2), ts(4)], 'a full page anchors at its last transaction');
    assert.equal(res.body.links.next, `/api/v1/accounts/0.0.8?limit=3&order=asc&timestamp=gt:${ts(4)}`);
    res = await list('limit=7&order=asc');
    assert.deepEqual(timestampsOf(res), [ts(0), ts(2), ts(4), ts(6), ts(8)], 'the first 10 s from the first transaction');
    assert.equal(res.body.links.next, `/api/v1/accounts/0.0.8?limit=7&order=asc&timestamp=gt:${formatTimestamp(ns(10) - 1n)}`);

    assert.deepEqual(await pageThrough('/api/v1/accounts/0.0.8?limit=7'), [...setup.expected].reverse());
    assert.deepEqual(await pageThrough('/api/v1/accounts/0.0.8?limit=7&order=asc'), setup.expected);

    res = await list(`timestamp=${ts(20)}`);
    assert.deepEqual(timestampsOf(res), [ts(20)], 'an eq timestamp is not bound');
    assert.equal(res.body.links.next, null);
    res = await list(`timestamp=gte:${ts(100)}&timestamp=lt:${ts(105)}`);
    assert.deepEqual(timestampsOf(res), [ts(104), ts(102), ts(100)], 'a range narrower than the width stays');
    assert.equal(res.body.links.next, null);

    await h.prepare({ accounts: [{ num: 8 }] }, { query: { bindTimestampRange: true } });
    res = await list('');
    assert.deepEqual(res.body.transactions, []);
    assert.match(res.body.links.next, /\?timestamp=lt:\d+\.\d{9}$/, 'no transactions at all: the range starts at 0');
  });
});
