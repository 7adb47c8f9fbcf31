/** GET /api/v1/contracts/results/{transactionIdOrHash}: which execution a transaction id or hash selects, 404s, and bad ids and parameters. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HASH, INVALID_TRANSACTION_ID, T, TX_ID, VALID_START, setup, url } from '../support/contractResultById.js';
import { errorOf, get, useHarness } from '../support/harness.js';

describe('contract result by transaction id or hash: lookup', () => {
  const harness = useHarness();

  it('selects the transaction by nonce, the last nonce value winning; the hash path ignores nonce', async () => {
    const child = T + 7n;
    await harness().prepare(
      setup({
        extra: {
          transactions: [
            { consensus_timestamp: T.toString(), payerAccountId: 8001, type: 50, valid_start_timestamp: VALID_START.toString() },
            {
              consensus_timestamp: child.toString(),
              payerAccountId: 8001,
              type: 7,
              nonce: 1,
              valid_start_timestamp: VALID_START.toString(),
            },
          ],
          contractresults: [
            { consensus_timestamp: T.toString(), contract_id: 5001, payer_account_id: 8001, call_result: [1], transaction_hash: HASH },
            {
              consensus_timestamp: child.toString(),
              contract_id: 5002,
              payer_account_id: 8001,
              call_result: [2],
              transaction_hash: HASH,
              transaction_result: 33,
            },
          ],
          contractlogs: [],
          contractStateChanges: [],
        },
      }),
    );
    const timestampOf = async (id: string, query = '') => (await get(harness(), url(id, query))).body.timestamp;
    assert.equal(await timestampOf(TX_ID), '1676540005.000000000');
    assert.equal(await timestampOf(TX_ID, '?nonce=0'), '1676540005.000000000');
    assert.equal(await timestampOf(TX_ID, '?nonce=1'), '1676540005.000000007');
    assert.equal(await timestampOf(TX_ID, '?nonce=eq:1'), '1676540005.000000007');
    assert.equal(await timestampOf(TX_ID, '?nonce=0&nonce=1'), '1676540005.000000007');
    assert.equal(await timestampOf(TX_ID, '?nonce=1&nonce=0'), '1676540005.000000000');
    assert.equal((await get(harness(), url(TX_ID, '?nonce=2'))).status, 404);
    // by hash: SUCCESS first, whatever the nonce
    assert.equal(await timestampOf(HASH, '?nonce=1'), '1676540005.000000000');
  });

  it('prefers a successful transaction, else the latest, within 35 minutes of the valid start', async () => {
    const at = (offset: bigint) => (VALID_START + offset).toString();
    const transactions = (results: number[], offsets: bigint[]) =>
      results.map((result, i) => ({
        consensus_timestamp: at(offsets[i]!),
        payerAccountId: 8001,
        result,
        valid_start_timestamp: VALID_START.toString(),
      }));
    const resultsAt = (offsets: bigint[]) =>
      offsets.map((o) => ({
        consensus_timestamp: at(o),
        contract_id: 5001,
        payer_account_id: 8001,
        call_result: [1],
        transaction_hash: HASH,
      }));
    const offsets = [1n, 2n, 3n];
    const run = async (results: number[], offsetList = offsets) => {
      await harness().prepare({ transactions: transactions(results, offsetList), contractresults: resultsAt(offsetList) });
      return (await get(harness(), url(TX_ID))).body.timestamp;
    };
    assert.equal(await run([11, 22, 11]), '1676540000.000000002');
    assert.equal(await run([11, 10, 11]), '1676540000.000000003');
    const window = 35n * 60n * 1_000_000_000n;
    assert.equal(await run([22, 22], [window, window + 1n]), '1676542100.000000000');
  });

  it('by hash prefers a SUCCESS execution, else the latest', async () => {
    const results = (codes: number[]) =>
      codes.map((code, i) => ({
        consensus_timestamp: (T + BigInt(i)).toString(),
        contract_id: 5001,
        payer_account_id: 8001,
        call_result: [1],
        transaction_hash: HASH,
        transaction_result: code,
      }));
    await harness().prepare({ contractresults: results([279, 22, 312]) });
    assert.equal((await get(harness(), url(HASH))).body.timestamp, '1676540005.000000001');
    await harness().prepare({ contractresults: results([279, 11, 312]) });
    const body = (await get(harness(), url(HASH))).body;
    assert.equal(body.timestamp, '1676540005.000000002');
    assert.equal(body.result, 'WRONG_NONCE');
    assert.equal(body.status, '0x0');
  });

  it('answers 404 when nothing matches', async () => {
    await harness().prepare(setup());
    for (const id of [
      '0.0.8001-1676540000-000000001',
      '0.0.8002-1676540000-000000000',
      'cd'.repeat(32),
      '0.0.8001-9223372036-854775807',
      '0.0.8001-9223372037-000000000',
    ]) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
    // a transaction without a contract involvement, and an involvement without a result
    await harness().prepare({
      transactions: [{ consensus_timestamp: T.toString(), payerAccountId: 8001, valid_start_timestamp: VALID_START.toString() }],
      contractlogs: [{ consensus_timestamp: (T + 1n).toString(), contract_id: 5001, payer_account_id: 8002 }],
    });
    await harness().db.query(
      `insert into transaction (consensus_timestamp, payer_account_id, valid_start_ns, result, type) values ($1, 8002, $2, 22, 7)`,
      [T + 1n, VALID_START],
    );
    for (const id of [TX_ID, '0.0.8002-1676540000-000000000']) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
    // an involvement by hash whose result is gone
    await harness().prepare(setup());
    await harness().db.query('delete from contract_result');
    assert.deepEqual((await get(harness(), url(HASH))).body, errorOf('Not found'));
  });

  it('rejects malformed transaction ids and hashes', async () => {
    for (const id of [
      '1',
      'x',
      '0.0.x-167654-000123456',
      '0.0.1-167654',
      '0.0.1-167654-1234567890',
      '0.0.1-12345678901234567890-1',
      HASH.slice(1),
      `0x${HASH}0`,
      `0x${'g'.repeat(64)}`,
    ]) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 400, id);
      assert.deepEqual(res.body, errorOf(INVALID_TRANSACTION_ID), id);
    }
    for (const payer of ['0.0.274877906944', '1024.0.1', '0.65536.1']) {
      const res = await get(harness(), url(`${payer}-1676540000-000000000`));
      assert.equal(res.status, 400, payer);
      assert.deepEqual(res.body, errorOf(`Invalid entity ID "${payer}"`));
    }
  });

  it('rejects bad and unknown query parameters in query order', async () => {
    await harness().prepare(setup());
    const cases: [string, string[]][] = [
      ['?nonce=-1&nonce=2147483648&nonce=x&nonce=lt:10', Array(4).fill('Invalid parameter: nonce')],
      ['?limit=1&nonce=1.5&order=asc', ['Unknown query parameter: limit', 'Invalid parameter: nonce', 'Unknown query parameter: order']],
      ['?hbar=yes&hbar=ne:true', ['Invalid parameter: hbar', 'Invalid parameter: hbar']],
      ['?hbar=true&hbar=false', ["Invalid hbar parameter value: true,false. Must be 'true' or 'false'"]],
      ['?hbar=', ['Invalid parameter: hbar']],
      ['?hbar=eq:false', ["Invalid hbar parameter value: eq:false. Must be 'true' or 'false'"]],
    ];
    for (const [query, messages] of cases) {
      for (const id of [TX_ID, HASH]) {
        const res = await get(harness(), url(id, query));
        assert.equal(res.status, 400, query);
        assert.deepEqual(res.body, errorOf(...messages), query);
      }
    }
    assert.equal((await get(harness(), url(TX_ID, '?nonce=2147483647'))).status, 404);
  });
});
