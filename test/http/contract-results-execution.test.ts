/** GET /api/v1/contracts/results/{transactionIdOrHash}: function parameters, failed executions, block fields, sender, logs and state changes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HASH, T, TX_ID, longZero, pad64, setup, url, type Row } from '../support/contractResultById.js';
import { get, useHarness } from '../support/harness.js';

describe('contract result by transaction id or hash: execution fields', () => {
  const harness = useHarness();

  it('takes the function parameters from the call-data file (num > 1000) when the call data and the parameters are empty', async () => {
    const fileData = (entity: number, rows: [bigint, number[], number][]) =>
      rows.map(([ts, data, type]) => ({ consensus_timestamp: ts.toString(), entity_id: entity, file_data: data, transaction_type: type }));
    const files = [
      ...fileData(5001, [
        [T - 100n, [1], 17],
        [T - 90n, [2], 16],
        [T - 80n, [3, 3], 19],
        [T - 70n, [4], 16],
        [T - 60n, [5], 18],
        [T + 50n, [6], 16],
      ]),
      ...fileData(1000, [[T - 101n, [9, 9], 17]]),
    ];
    const run = async (eth: Row, result: Row = { function_parameters: [] }) => {
      await harness().prepare(setup({ eth, result, extra: { filedata: files } }));
      return (await get(harness(), url(TX_ID))).body.function_parameters;
    };
    // the latest update, then every append after it (even after the result), deletes ignored
    assert.equal(await run({ call_data: null, call_data_id: 5001 }), '0x03030406');
    assert.equal(await run({ call_data: '', call_data_id: '0.0.5001' }), '0x03030406');
    assert.equal(await run({ call_data: '0x0a', call_data_id: 5001 }), '0x0a');
    assert.equal(await run({ call_data: null, call_data_id: 5001 }, { function_parameters: [8] }), '0x08');
    assert.equal(await run({ call_data: null, call_data_id: 1000 }), '0x');
    assert.equal(await run({ call_data: null, call_data_id: 4242 }), '0x');
  });

  it('renders failed executions: failed_initcode, error_message and status', async () => {
    await harness().prepare(
      setup({ result: { transaction_result: 33, error_message: '', failed_initcode: null, contract_id: 0, call_result: [] } }),
    );
    let body = (await get(harness(), url(TX_ID))).body;
    assert.equal(body.status, '0x0');
    assert.equal(body.result, 'CONTRACT_REVERT_EXECUTED');
    assert.equal(body.error_message, 'CONTRACT_REVERT_EXECUTED');
    assert.equal(body.failed_initcode, '0x0707', 'the call data of the Ethereum transaction');
    assert.equal(body.contract_id, null);
    assert.equal(body.address, null);
    assert.equal(body.to, longZero(5001), 'to_address of the Ethereum transaction');

    await harness().prepare(setup({ result: { transaction_result: 34, error_message: 'out of gas', failed_initcode: [0xfe, 1] } }));
    body = (await get(harness(), url(TX_ID))).body;
    assert.equal(body.error_message, 'out of gas');
    assert.equal(body.failed_initcode, '0xfe01');

    await harness().prepare(setup({ eth: null, result: { transaction_result: 33, error_message: '' } }));
    body = (await get(harness(), url(TX_ID))).body;
    assert.equal(body.error_message, null, 'the result name is used only with an Ethereum transaction');
    assert.equal(body.failed_initcode, null);

    await harness().prepare(setup({ eth: { call_data: '0x0707' }, result: { transaction_result: 220 } }));
    body = (await get(harness(), url(TX_ID))).body;
    assert.equal(body.status, '0x1');
    assert.equal(body.failed_initcode, null);
  });

  it('answers 206 with the cache header when the call result is unknown', async () => {
    await harness().prepare(setup({ result: { call_result: null, bloom: null } }));
    for (const id of [TX_ID, HASH]) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 206);
      assert.equal(res.headers['cache-control'], 'public, max-age=600');
      assert.equal(res.body.call_result, '0x');
      assert.equal(res.body.bloom, '0x');
    }
  });

  it('renders an empty bloom as 256 zero bytes and block fields from the record file holding the timestamp', async () => {
    await harness().prepare(
      setup({
        result: { bloom: [] },
        extra: { recordFiles: [{ index: 9, consensus_start: 1, consensus_end: T.toString(), gas_used: -1, hash: 'abc' }] },
      }),
    );
    const body = (await get(harness(), url(TX_ID))).body;
    assert.equal(body.bloom, '0x' + '0'.repeat(512));
    assert.deepEqual([body.block_number, body.block_hash, body.block_gas_used], [9, '0xabc', null]);

    await harness().prepare(setup({ extra: { recordFiles: [{ index: 9, consensus_start: 1, consensus_end: (T - 1n).toString() }] } }));
    const noBlock = (await get(harness(), url(TX_ID))).body;
    assert.deepEqual([noBlock.block_number, noBlock.block_hash, noBlock.block_gas_used], [null, '0x', null]);
  });

  it('recovers from from the sender alias in the function result when there is no sender', async () => {
    const alias = '11'.repeat(20);
    // ContractFunctionResult { sender_id (13): AccountID { alias (4): 20 bytes } }
    const functionResult = '6a16' + '2214' + alias;
    await harness().prepare(setup({ eth: null, result: { sender_id: null, function_result: functionResult } }));
    assert.equal((await get(harness(), url(HASH))).body.from, '0x' + alias);
    await harness().prepare(setup({ eth: null, result: { sender_id: null, function_result: [0xff] } }));
    assert.equal((await get(harness(), url(HASH))).body.from, null);
    await harness().prepare(setup({ eth: null, result: { sender_id: 0, function_result: functionResult } }));
    assert.equal((await get(harness(), url(HASH))).body.from, null);
  });

  it('keeps logs and state changes of the involved contracts only, without migration rows', async () => {
    await harness().prepare(
      setup({
        extra: {
          contractlogs: [
            { consensus_timestamp: T.toString(), contract_id: 5001, index: 2, payer_account_id: 8001 },
            { consensus_timestamp: T.toString(), contract_id: 5001, index: 0, payer_account_id: 8001 },
            { consensus_timestamp: T.toString(), contract_id: 5001, index: 1, payer_account_id: 8001 },
          ],
          contractStateChanges: [
            { consensus_timestamp: T.toString(), contract_id: 5001, slot: [9], payer_account_id: 8001, migration: true },
            { consensus_timestamp: T.toString(), contract_id: 5001, slot: [8], payer_account_id: 8001 },
          ],
        },
      }),
    );
    // a log of a contract that the execution did not involve
    await harness().db.query(
      `insert into contract_log (bloom, consensus_timestamp, contract_id, data, index, payer_account_id) values ('\\x01', $1, 6001, '\\x01', 3, 8001)`,
      [T],
    );
    const body = (await get(harness(), url(TX_ID))).body;
    assert.deepEqual(
      body.logs.map((l: { index: number }) => l.index),
      [0, 1, 2],
    );
    assert.deepEqual(
      body.state_changes.map((s: { slot: string }) => s.slot),
      [pad64('08')],
    );
  });
});
