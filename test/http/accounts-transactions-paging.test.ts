/** GET /api/v1/accounts/{id}: paging, next links, limits and the bound timestamp range. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import type { TransferJoin } from '../../src/routes/accounts/transactions/transferJoinPlanner.js';
import { accountTransactionPages, SECOND, account8, many, ns, timestampsOf, ts } from '../support/accountTransactions.js';
import { get, useHarness } from '../support/harness.js';

describe('account transactions: paging', () => {
  const harness = useHarness();
  const { list, pageThrough } = accountTransactionPages(harness);

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
    // lists of several pages at both limits, none a whole number of pages (a link after a full last page asks before 0.0.8 existed)
    for (let i = 0; i < 48; i++) {
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
    const ways: (TransferJoin | 'auto')[] = ['auto', 'merge', 'probe by account', 'probe by type'];
    const runs: [number, TransferJoin | 'auto'][] = [
      [harness().config.query.transfers.walkLimit, 'auto'],
      ...[3, 1].flatMap((walk) => ways.map((way): [number, TransferJoin | 'auto'] => [walk, way])),
    ];
    try {
      for (const [walkLimit, join] of runs) {
        await harness().configure({ query: { transfers: { walkLimit, join } } });
        for (const [types, listed] of Object.entries(expected)) {
          for (const limit of [3, 7]) {
            const url = `/api/v1/accounts/0.0.8?transactiontype=${types}&limit=${limit}`;
            const context = `walk ${walkLimit}, ${join === 'auto' ? 'cheapest way' : join}, ${types}, limit ${limit}`;
            assert.deepEqual(await pageThrough(url), [...listed].reverse(), context);
            assert.deepEqual(await pageThrough(`${url}&order=asc`), listed, `${context}, asc`);
          }
        }
      }
    } finally {
      await harness().resetConfig();
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

  it('uses the default limit and caps the limit at the configured maximum', async () => {
    await harness().prepare(many().setup);
    assert.equal((await list('')).body.transactions.length, 25);
    let res = await list('limit=1000');
    assert.equal(res.body.transactions.length, 65);
    assert.equal(res.body.links.next, null);
    await harness().configure({ response: { limit: { max: 10 } } });
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
