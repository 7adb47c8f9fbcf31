/** GET /api/v1/accounts/{id}: which transactions the list holds: the four sources, type and timestamp filters, transactions=false. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountTransactionPages, LISTED, many, orphanTransfer, sources, timestampsOf, ts } from '../support/accountTransactions.js';
import { useHarness } from '../support/harness.js';

describe('account transactions: filters', () => {
  const harness = useHarness();
  const { list } = accountTransactionPages(harness);

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
});
