/** GET /api/v1/contracts/results/{transactionIdOrHash}: lookups, the full result view, and every error path. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, get, useHarness } from '../support/harness.js';

const VALID_START = 1_676_540_000_000_000_000n;
const T = VALID_START + 5_000_000_000n;
const TX_ID = '0.0.8001-1676540000-000000000';
const HASH = 'ab'.repeat(32);
const EVM = '25fe26adc577cc89172e6156c9e24f7b9751b762';
const R = '0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c042';
const S = '0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b354';
const BLOCK_HASH = 'cd'.repeat(48);
const url = (idOrHash: string, query = '') => `/api/v1/contracts/results/${idOrHash}${query}`;
const pad64 = (hex: string) => '0x' + hex.padStart(64, '0');
const longZero = (num: number) => '0x' + num.toString(16).padStart(40, '0');
const INVALID_TRANSACTION_ID =
  'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds';

type Row = Record<string, unknown>;

/** A contract call by 0.0.8001 to 0.0.5001 (which also touches 0.0.5002), wrapped in an Ethereum transaction. */
function setup(options: { result?: Row; eth?: Row | null; transaction?: Row; extra?: Row } = {}) {
  return {
    entities: [{ num: 5001, evm_address: '0x' + EVM }],
    contractresults: [
      {
        amount: 30,
        bloom: [5, 5],
        call_result: [6, 6],
        consensus_timestamp: T.toString(),
        contract_id: 5001,
        created_contract_ids: [7001, 7002],
        error_message: '',
        function_parameters: [7, 7],
        gas_consumed: 90,
        gas_limit: 2000,
        gas_used: 100,
        payer_account_id: 8001,
        sender_id: 8001,
        transaction_hash: HASH,
        transaction_index: 3,
        transaction_result: 22,
        ...options.result,
      },
    ],
    contractlogs: [
      { consensus_timestamp: T.toString(), contract_id: 5002, index: 1, topic2: null, topic3: null, data: [], bloom: '0x0505' },
      { consensus_timestamp: T.toString(), contract_id: 5001, index: 0, topic1: [], topic2: null, topic3: null, data: '0x1234' },
      { consensus_timestamp: (T + 1n).toString(), contract_id: 5001, index: 0 },
    ],
    contractStateChanges: [
      { consensus_timestamp: T.toString(), contract_id: 5002, slot: [2], value_read: [], value_written: null },
      { consensus_timestamp: T.toString(), contract_id: 5001, slot: [1, 0], value_read: [1] },
      { consensus_timestamp: T.toString(), contract_id: 5001, slot: [1], value_read: [2], value_written: [3] },
      { consensus_timestamp: T.toString(), contract_id: 5002, slot: [3], migration: true },
    ],
    recordFiles: [
      { index: 6, consensus_start: (T - 20n).toString(), consensus_end: (T - 10n).toString(), hash: 'ee'.repeat(48), gas_used: 1 },
      { index: 7, consensus_start: (T - 9n).toString(), consensus_end: (T + 10n).toString(), hash: BLOCK_HASH, gas_used: 123456 },
      { index: 8, consensus_start: (T + 11n).toString(), consensus_end: (T + 20n).toString(), hash: 'ff'.repeat(48), gas_used: 2 },
    ],
    transactions: [
      {
        consensus_timestamp: T.toString(),
        payerAccountId: 8001,
        type: 50,
        valid_start_timestamp: VALID_START.toString(),
        ...options.transaction,
      },
    ],
    ethereumtransactions:
      options.eth === null
        ? []
        : [{ consensus_timestamp: T.toString(), payer_account_id: 8001, hash: HASH, call_data: '0x0707', ...options.eth }],
    ...options.extra,
  };
}

const EXPECTED_LOGS = [
  {
    address: '0x' + EVM,
    bloom: '0x0123',
    contract_id: '0.0.5001',
    data: pad64('1234'),
    index: 0,
    topics: ['0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750', pad64('')],
  },
  {
    address: longZero(5002),
    bloom: '0x0505',
    contract_id: '0.0.5002',
    data: '0x',
    index: 1,
    topics: [
      '0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750',
      '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
    ],
  },
];

const EXPECTED_STATE_CHANGES = [
  { address: '0x' + EVM, contract_id: '0.0.5001', slot: pad64('01'), value_read: pad64('02'), value_written: pad64('03') },
  { address: '0x' + EVM, contract_id: '0.0.5001', slot: pad64('0100'), value_read: pad64('01'), value_written: pad64('a1a1') },
  { address: longZero(5002), contract_id: '0.0.5002', slot: pad64('02'), value_read: pad64(''), value_written: null },
];

const EXPECTED_ETH_RESULT = {
  access_list: [],
  address: '0x' + EVM,
  amount: 0,
  authorization_list: [],
  block_gas_used: 123456,
  block_hash: '0x' + BLOCK_HASH,
  block_number: 7,
  bloom: '0x0505',
  call_result: '0x0606',
  chain_id: '0x',
  contract_id: '0.0.5001',
  created_contract_ids: ['0.0.7001', '0.0.7002'],
  error_message: null,
  failed_initcode: null,
  from: longZero(8001),
  function_parameters: '0x0707',
  gas_consumed: 90,
  gas_limit: 1000000,
  gas_price: '0x4a817c80',
  gas_used: 100,
  hash: '0x' + HASH,
  logs: EXPECTED_LOGS,
  max_fee_per_gas: '0x',
  max_priority_fee_per_gas: '0x',
  nonce: 1,
  r: R,
  result: 'SUCCESS',
  s: S,
  state_changes: EXPECTED_STATE_CHANGES,
  status: '0x1',
  timestamp: '1676540005.000000000',
  to: longZero(5001),
  transaction_index: 3,
  type: 2,
  v: 1,
};

describe('contract result by transaction id or hash', () => {
  const harness = useHarness();

  it('renders the full result of an Ethereum transaction for every id and hash form', async () => {
    await harness().prepare(setup());
    for (const id of [TX_ID, HASH, '0x' + HASH, HASH.toUpperCase(), '0x' + HASH.toUpperCase()]) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 200, id);
      assert.equal(res.headers['cache-control'], 'public, max-age=600');
      assert.deepEqual(res.body, EXPECTED_ETH_RESULT, id);
    }
  });

  it('renders a result without an Ethereum transaction with the non-Ethereum defaults', async () => {
    await harness().prepare(setup({ eth: null }));
    const res = await get(harness(), url(TX_ID));
    assert.equal(res.status, 200);
    const { authorization_list: _, ...withoutAuthorizationList } = EXPECTED_ETH_RESULT;
    assert.deepEqual(res.body, {
      ...withoutAuthorizationList,
      access_list: [],
      amount: 30,
      chain_id: '0x128',
      function_parameters: '0x0707',
      gas_limit: 2000,
      gas_price: null,
      max_fee_per_gas: null,
      max_priority_fee_per_gas: null,
      nonce: null,
      r: null,
      s: null,
      type: 0,
      v: null,
    });
    assert.equal((await get(harness(), url(TX_ID, '?hbar=false'))).body.amount, 300_000_000_000);
  });

  it('ignores an Ethereum transaction without a transaction row of the same payer and time', async () => {
    await harness().prepare(setup({ eth: { payer_account_id: 9999 } }));
    let body = (await get(harness(), url(HASH))).body;
    assert.equal(body.nonce, null);
    assert.equal(body.chain_id, '0x128');
    await harness().prepare(setup({ extra: { transactions: [] } }));
    body = (await get(harness(), url(HASH))).body;
    assert.equal(body.nonce, null);
    assert.equal(body.type, 0);
  });

  it('uses the configured chain id and omits authorization_list when delegation addresses are off', async () => {
    await harness().prepare(setup({ eth: null }), { network: { chainId: '0x12a' } });
    assert.equal((await get(harness(), url(TX_ID))).body.chain_id, '0x12a');
    await harness().prepare(setup({ eth: { authorization_list: [{ nonce: 1 }] } }), { response: { enableDelegationAddress: false } });
    assert.equal('authorization_list' in (await get(harness(), url(TX_ID))).body, false);
  });

  it('returns access and authorization lists verbatim, even with integers beyond 2^53', async () => {
    const accessList = [{ address: '0xa02457e5dfd32bda5fc7e1f1b008aa5979568150', storage_keys: [pad64('81')] }];
    const authorizationList = [{ chain_id: '0x127', nonce: 5, y_parity: '0x1' }, { nonce: 12345678901234567890n }];
    await harness().prepare(setup({ eth: { access_list: accessList, authorization_list: authorizationList } }));
    const res = await get(harness(), url(TX_ID));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.access_list, accessList);
    assert.deepEqual(res.body.authorization_list[0], authorizationList[0]);
    assert.match(res.text, /"nonce":12345678901234567\d{3}/);
  });

  it('converts Ethereum amounts and gas prices to tinybars unless hbar=false', async () => {
    const eth = {
      chain_id: '0x012a',
      gas_price: '0x00ad78ebc5ac620000',
      max_fee_per_gas: '0xCF38224400',
      max_priority_fee_per_gas: '0x00',
      value: '0x0001158e460913d00000',
    };
    await harness().prepare(setup({ eth }));
    for (const query of ['', '?hbar=true', '?hbar=TRUE', '?HBAR=True']) {
      const body = (await get(harness(), url(TX_ID, query))).body;
      assert.deepEqual(
        [body.amount, body.gas_price, body.max_fee_per_gas, body.max_priority_fee_per_gas, body.chain_id],
        [2_000_000_000, '0x4a817c80', '0x59', '0x0', '0x12a'],
        query,
      );
    }
    for (const query of ['?hbar=false', '?Hbar=FALSE']) {
      const body = (await get(harness(), url(TX_ID, query))).body;
      assert.deepEqual(
        [body.amount, body.gas_price, body.max_fee_per_gas, body.max_priority_fee_per_gas, body.chain_id],
        [20_000_000_000_000_000_000n, '0x0ad78ebc5ac620000', '0xcf38224400', '0x0', '0x12a'],
        query,
      );
    }
  });

  it('reads the value as a signed integer in tinybars, truncating toward zero', async () => {
    // -15 000 000 001 weibars in two's complement
    const negative = '0x' + (2n ** 64n - 15_000_000_001n).toString(16);
    await harness().prepare(setup({ eth: { value: negative } }));
    assert.equal((await get(harness(), url(TX_ID))).body.amount, -1);
    assert.equal((await get(harness(), url(TX_ID, '?hbar=false'))).body.amount, 2n ** 64n - 15_000_000_001n);
  });

  it('renders amount null for a NULL or empty value and v null for an empty legacy signature_v, where the reference fails', async () => {
    for (const value of [null, []]) {
      await harness().prepare(setup({ eth: { value } }));
      for (const query of ['?hbar=true', '?hbar=false']) {
        const res = await get(harness(), url(TX_ID, query));
        assert.equal(res.status, 200, `${JSON.stringify(value)} ${query}`);
        assert.equal(res.body.amount, null);
      }
    }
    await harness().prepare(setup({ eth: { type: 0, signature_v: [] } }));
    const res = await get(harness(), url(TX_ID, '?hbar=false'));
    assert.equal(res.status, 200);
    assert.equal(res.body.v, null);
    assert.equal(res.body.type, 0);
  });

  it('takes v from a legacy signature_v, else from the recovery id', async () => {
    await harness().prepare(setup({ eth: { type: 0, signature_v: '0x0274', recovery_id: 1 } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, 628);
    await harness().prepare(setup({ eth: { type: 0, signature_v: null, recovery_id: 0 } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, 0);
    await harness().prepare(setup({ eth: { type: 2, signature_v: '0x1b', recovery_id: null } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, null);
  });

  it('overrides to with a non-empty to_address of the Ethereum transaction', async () => {
    await harness().prepare(setup({ eth: { to_address: '0x47e8474502a5466f0d47d30ca5c98659cdb92fb1' } }));
    assert.equal((await get(harness(), url(TX_ID))).body.to, '0x47e8474502a5466f0d47d30ca5c98659cdb92fb1');
    for (const toAddress of [null, []]) {
      await harness().prepare(setup({ eth: { to_address: toAddress } }));
      assert.equal((await get(harness(), url(TX_ID))).body.to, longZero(5001));
    }
  });

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
