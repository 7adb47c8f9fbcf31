/**
 * GET /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}: contract resolution, state
 * changes of the named contract, error paths; and the gas price of non-Ethereum results from the
 * fee schedule and exchange rate files (shared by both contract result routes).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import { errorOf, get, useHarness } from '../support/harness.js';

const T = 1_676_540_005_000_000_000n;
const TS = '1676540005.000000000';
const EVM = '70f2b2914a2a4b783faefb75f459a580616fcb5e';
const url = (contract: string, timestamp = TS, query = '') => `/api/v1/contracts/${contract}/results/${timestamp}${query}`;
const pad64 = (hex: string) => '0x' + hex.padStart(64, '0');
const longZeroHex = (num: number) => num.toString(16).padStart(40, '0');

type Row = Record<string, unknown>;

/** A call of contract 0.0.5001 by 0.0.8001 at T touching 0.0.5002, without an Ethereum transaction. */
function setup(options: { result?: Row; extra?: Row } = {}) {
  return {
    contracts: [
      { num: 5001, evm_address: EVM, timestamp_range: '[1,)' },
      { num: 5003, evm_address: 'dd'.repeat(20), deleted: true },
    ],
    contractresults: [
      {
        amount: 30,
        bloom: [5],
        call_result: [6],
        consensus_timestamp: T.toString(),
        contract_id: 5001,
        function_parameters: [7],
        gas_limit: 987654,
        gas_used: 123,
        payer_account_id: 8001,
        sender_id: 8001,
        transaction_hash: '96'.repeat(32),
        ...options.result,
      },
    ],
    contractlogs: [{ consensus_timestamp: T.toString(), contract_id: 5002, index: 0, payer_account_id: 8001 }],
    contractStateChanges: [
      { consensus_timestamp: T.toString(), contract_id: 5001, slot: [2], payer_account_id: 8001, migration: true },
      { consensus_timestamp: T.toString(), contract_id: 5001, slot: [1], payer_account_id: 8001 },
      { consensus_timestamp: T.toString(), contract_id: 5002, slot: [3], payer_account_id: 8001, migration: true },
      { consensus_timestamp: T.toString(), contract_id: 5002, slot: [4], payer_account_id: 8001 },
    ],
    recordFiles: [
      { index: 17, consensus_start: (T - 5n).toString(), consensus_end: (T + 5n).toString(), hash: 'ab'.repeat(48), gas_used: 50 },
    ],
    ...options.extra,
  };
}

describe('contract result by contract and timestamp', () => {
  const harness = useHarness();

  it('resolves every contract id form, the EVM address and the long-zero address, and any involved entity', async () => {
    await harness().prepare(setup());
    const forms = [
      '0.0.5001',
      '0.5001',
      '5001',
      EVM,
      '0x' + EVM,
      EVM.toUpperCase(),
      '0.0.' + EVM,
      '0.' + EVM,
      longZeroHex(5001),
      '0x' + longZeroHex(5001),
      '0.0.8001',
      '0.0.5002',
    ];
    for (const contract of forms) {
      const res = await get(harness(), url(contract));
      assert.equal(res.status, 200, contract);
      assert.equal(res.headers['cache-control'], 'public, max-age=600');
      assert.equal(res.body.contract_id, '0.0.5001', contract);
      assert.equal(res.body.address, '0x' + EVM);
      assert.equal(res.body.timestamp, TS);
    }
    for (const timestamp of ['1676540005', '1676540005.0', '1676540005.000000000']) {
      assert.equal((await get(harness(), url('0.0.5001', timestamp))).status, 200, timestamp);
    }
  });

  it('renders a non-Ethereum result in full', async () => {
    await harness().prepare(setup());
    const res = await get(harness(), url('0.0.5001'));
    assert.deepEqual(res.body, {
      access_list: [],
      address: '0x' + EVM,
      amount: 30,
      block_gas_used: 50,
      block_hash: '0x' + 'ab'.repeat(48),
      block_number: 17,
      bloom: '0x05',
      call_result: '0x06',
      chain_id: '0x128',
      contract_id: '0.0.5001',
      created_contract_ids: [],
      error_message: null,
      failed_initcode: null,
      from: '0x' + longZeroHex(8001),
      function_parameters: '0x07',
      gas_consumed: null,
      gas_limit: 987654,
      gas_price: null,
      gas_used: 123,
      hash: '0x' + '96'.repeat(32),
      logs: [
        {
          address: '0x' + longZeroHex(5002),
          bloom: '0x0123',
          contract_id: '0.0.5002',
          data: pad64('0123'),
          index: 0,
          topics: [
            '0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750',
            '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
            '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
            '0xe8d47b56e8cdfa95f871b19d4f50a857217c44a95502b0811a350fec1500dd67',
          ],
        },
      ],
      max_fee_per_gas: null,
      max_priority_fee_per_gas: null,
      nonce: null,
      r: null,
      result: 'SUCCESS',
      s: null,
      state_changes: [
        { address: '0x' + EVM, contract_id: '0.0.5001', slot: pad64('01'), value_read: pad64('0101'), value_written: pad64('a1a1') },
        { address: '0x' + EVM, contract_id: '0.0.5001', slot: pad64('02'), value_read: pad64('0101'), value_written: pad64('a1a1') },
        {
          address: '0x' + longZeroHex(5002),
          contract_id: '0.0.5002',
          slot: pad64('04'),
          value_read: pad64('0101'),
          value_written: pad64('a1a1'),
        },
      ],
      status: '0x1',
      timestamp: TS,
      to: '0x' + longZeroHex(5001),
      transaction_index: 1,
      type: 0,
      v: null,
    });
    assert.equal((await get(harness(), url('0.0.5001', TS, '?hbar=false'))).body.amount, 300_000_000_000);
  });

  it("keeps the named contract's migration state changes, and only those", async () => {
    await harness().prepare(setup());
    const slots = async (contract: string) =>
      (await get(harness(), url(contract))).body.state_changes.map(
        (s: { contract_id: string; slot: string }) => `${s.contract_id}/${s.slot.slice(-2)}`,
      );
    assert.deepEqual(await slots('0.0.5001'), ['0.0.5001/01', '0.0.5001/02', '0.0.5002/04']);
    assert.deepEqual(await slots('0.0.5002'), ['0.0.5001/01', '0.0.5002/03', '0.0.5002/04']);
    assert.deepEqual(await slots('0.0.8001'), ['0.0.5001/01', '0.0.5002/04']);
    assert.deepEqual(await slots(EVM), await slots('0.0.5001'), 'named by its EVM address');
  });

  it('finds the result by an EVM address in one statement', async () => {
    await harness().prepare(setup());
    // the first result after a load also reads the system files' rows (see the gas price tests)
    assert.equal((await get(harness(), url('0x' + EVM))).status, 200);
    const queries = await harness().captureQueries(async () => assert.equal((await get(harness(), url('0x' + EVM))).status, 200));
    assert.equal(queries.length, 1);
  });

  it('resolves an opaque EVM address to a live contract or account only', async () => {
    const accountEvm = '02cafecafe0000000000000000000000abcd5678';
    await harness().prepare(
      setup({
        extra: {
          accounts: [
            { num: 9111, evm_address: accountEvm },
            { num: 9112, evm_address: 'ee'.repeat(20), deleted: null },
          ],
          entities: [{ num: 9113, evm_address: 'cc'.repeat(20), type: 'TOKEN' }],
          contractlogs: [9111, 9112, 9113, 5003].map((id, index) => ({
            consensus_timestamp: T.toString(),
            contract_id: id,
            index: index + 1,
            payer_account_id: 8001,
          })),
        },
      }),
    );
    assert.equal((await get(harness(), url('0x' + accountEvm))).status, 200);
    for (const evm of ['ee'.repeat(20), 'cc'.repeat(20), 'dd'.repeat(20), '12'.repeat(20)]) {
      const res = await get(harness(), url(evm));
      assert.equal(res.status, 404, evm);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
    // the numeric forms do not look at the entity at all
    assert.equal((await get(harness(), url('0.0.5003'))).status, 200);
  });

  it('answers 500 like the reference when two live entities share an EVM address', async () => {
    await harness().prepare(setup({ extra: { accounts: [{ num: 9200, evm_address: EVM }] } }));
    for (const path of [url(EVM), url(EVM, '1676540005.000000001')]) {
      const res = await get(harness(), path);
      assert.equal(res.status, 500, path);
      assert.deepEqual(res.body, errorOf('Internal error'));
    }
  });

  it('answers 206 when the call result is unknown', async () => {
    await harness().prepare(setup({ result: { call_result: null, transaction_result: 33 } }));
    const res = await get(harness(), url('0.0.5001'));
    assert.equal(res.status, 206);
    assert.equal(res.headers['cache-control'], 'public, max-age=600');
    assert.equal(res.body.status, '0x0');
    assert.equal(res.body.error_message, null);
  });

  it('answers 404 without an involvement or a result', async () => {
    await harness().prepare(setup());
    for (const path of [url('0.0.5001', '1676540005.000000001'), url('0.0.6001'), url('0.0.0'), url('0.0.5001', '0')]) {
      const res = await get(harness(), path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
    await harness().db.query('delete from contract_result');
    assert.deepEqual((await get(harness(), url('0.0.5001'))).body, errorOf('Not found'));
  });

  it('reports the hbar value first, then both path errors together, then the query parameters', async () => {
    await harness().prepare(setup());
    const cases: [string, string[]][] = [
      [url('-1.0.1', '167654.000123456.2'), ['Invalid parameter: contractid', 'Invalid parameter: timestamp']],
      [url('x'), ['Invalid parameter: contractid']],
      [url('0f2b2914a2a4b783faefb75f459a580616fcb5e'), ['Invalid parameter: contractid']],
      [url('1.2.' + EVM), ['Invalid parameter: contractid']],
      [url('0.0.274877906944'), ['Invalid parameter: contractid']],
      [url('0.0.5001', '12345678901'), ['Invalid parameter: timestamp']],
      [url('0.0.5001', '1.1234567890'), ['Invalid parameter: timestamp']],
      [url('x', 'y', '?hbar=maybe'), ["Invalid hbar parameter value: maybe. Must be 'true' or 'false'"]],
      [url('x', 'y', '?hbar=true&hbar=true'), ["Invalid hbar parameter value: true,true. Must be 'true' or 'false'"]],
      [url('x', TS, '?limit=1'), ['Invalid parameter: contractid']],
      [url('0.0.5001', TS, '?index=3&limit=2'), ['Unknown query parameter: index', 'Unknown query parameter: limit']],
      [url('0.0.5001', TS, '?nonce=1&hbar=false'), ['Unknown query parameter: nonce']],
      [url('x', TS, '?a[b][c]=1'), ['Input depth exceeded depth option of 1 and strictDepth is true']],
    ];
    for (const [path, messages] of cases) {
      const res = await get(harness(), path);
      assert.equal(res.status, 400, path);
      assert.deepEqual(res.body, errorOf(...messages), path);
    }
  });
});

const HOUR = 3600n * 1_000_000_000n;
const HOUR_START = 1_676_538_000n * 1_000_000_000n; // T is 33 minutes into this hour
const SECONDS = (ns: bigint) => Number(ns / 1_000_000_000n);

const writer = () => protobuf.Writer.create();
const message = (build: (w: protobuf.Writer) => void) => {
  const w = writer();
  build(w);
  return w.finish();
};
const timestampMessage = (seconds: number) => message((w) => w.uint32(8).int64(seconds));

function exchangeRates(current: [number, number, number], next: [number, number, number]): Uint8Array {
  const rate = ([hbar, cent, expiry]: [number, number, number]) =>
    message((w) =>
      w
        .uint32(8)
        .int32(hbar)
        .uint32(16)
        .int32(cent)
        .uint32((3 << 3) | 2)
        .bytes(timestampMessage(expiry)),
    );
  return message((w) => w.uint32(10).bytes(rate(current)).uint32(18).bytes(rate(next)));
}

/** A fee schedule whose entries are [functionality, gas]; ContractCall is 6. */
function feeSchedules(
  current: { entries: [number, number][]; expiry: number },
  next: { entries: [number, number][]; expiry: number },
): Uint8Array {
  const schedule = ({ entries, expiry }: { entries: [number, number][]; expiry: number }) =>
    message((w) => {
      for (const [functionality, gas] of entries) {
        const components = message((c) => c.uint32(8 << 3).int64(gas));
        const feeData = message((f) => f.uint32((3 << 3) | 2).bytes(components));
        w.uint32(10).bytes(
          message((e) =>
            e
              .uint32(8)
              .int32(functionality)
              .uint32((3 << 3) | 2)
              .bytes(feeData),
          ),
        );
      }
      w.uint32(18).bytes(timestampMessage(expiry));
    });
  return message((w) => w.uint32(10).bytes(schedule(current)).uint32(18).bytes(schedule(next)));
}

const LATER = SECONDS(HOUR_START + 2n * HOUR);
const EARLIER = SECONDS(HOUR_START) - 1;
const RATES = exchangeRates([30000, 285000, LATER], [1, 12, LATER]);
const SCHEDULES = feeSchedules(
  {
    entries: [
      [7, 5],
      [6, 852000],
    ],
    expiry: LATER,
  },
  { entries: [[6, 1_000_000]], expiry: LATER },
);

function file(entity: 111 | 112, timestamp: bigint, data: Uint8Array, type = 17) {
  return { entity_id: entity, consensus_timestamp: timestamp.toString(), file_data: Buffer.from(data), transaction_type: type };
}

describe('gas price of results without an Ethereum transaction', () => {
  const harness = useHarness();

  const gasPrice = async (files: Row[], overrides: Row = {}, path = url('0.0.5001')) => {
    await harness().prepare(setup({ extra: { filedata: files } }), overrides);
    const res = await get(harness(), path);
    assert.equal(res.status, 200);
    return res.body.gas_price;
  };

  it('uses the current schedule and rate: gas × hbar ÷ (cent × 1000), on both routes', async () => {
    const files = [file(111, T - 100n, SCHEDULES), file(112, T - 99n, RATES)];
    // 852000 × 30000 ÷ (285000 × 1000) = 89
    assert.equal(await gasPrice(files), '0x59');
    await harness().prepare(
      setup({
        extra: {
          filedata: files,
          transactions: [{ consensus_timestamp: T.toString(), payerAccountId: 8001, valid_start_timestamp: (T - 1n).toString() }],
        },
      }),
    );
    assert.equal((await get(harness(), '/api/v1/contracts/results/0.0.8001-1676540004-999999999')).body.gas_price, '0x59');
    assert.equal((await get(harness(), '/api/v1/contracts/results/' + '96'.repeat(32))).body.gas_price, '0x59');
  });

  it('switches to the next schedule or rate only when the current one expired before the hour of the timestamp', async () => {
    const withinHour = SECONDS(HOUR_START) + 600; // after the hour began, before T
    const schedulesAt = (expiry: number) => feeSchedules({ entries: [[6, 852000]], expiry }, { entries: [[6, 1_000_000]], expiry: LATER });
    const ratesAt = (expiry: number) => exchangeRates([30000, 285000, expiry], [1, 12, LATER]);
    const price = (schedules: Uint8Array, rates: Uint8Array) => gasPrice([file(111, T - 100n, schedules), file(112, T - 99n, rates)]);
    assert.equal(await price(schedulesAt(withinHour), ratesAt(withinHour)), '0x59');
    // 1 000 000 × 30000 ÷ 285 000 000 = 105
    assert.equal(await price(schedulesAt(EARLIER), ratesAt(withinHour)), '0x69');
    // 852000 × 1 ÷ 12000 = 71
    assert.equal(await price(schedulesAt(withinHour), ratesAt(EARLIER)), '0x47');
    // 1 000 000 ÷ 12000 = 83
    assert.equal(await price(schedulesAt(EARLIER), ratesAt(EARLIER)), '0x53');
  });

  it('never prices below 1 and gives null for a zero centEquiv or without a ContractCall entry', async () => {
    const cheap = feeSchedules({ entries: [[6, 1]], expiry: LATER }, { entries: [], expiry: LATER });
    assert.equal(await gasPrice([file(111, T - 1n, cheap), file(112, T - 2n, RATES)]), '0x1');
    const zeroCents = exchangeRates([1, 0, LATER], [1, 0, LATER]);
    assert.equal(await gasPrice([file(111, T - 1n, SCHEDULES), file(112, T - 2n, zeroCents)]), null);
    const noContractCall = feeSchedules({ entries: [[7, 5]], expiry: LATER }, { entries: [], expiry: LATER });
    assert.equal(await gasPrice([file(111, T - 1n, noContractCall), file(112, T - 2n, RATES)]), null);
  });

  it('reads the files as of the timestamp, concatenating appends after the latest create or update', async () => {
    const half = Math.floor(RATES.length / 2);
    const files = [
      file(111, T - 500n, SCHEDULES),
      file(112, T - 400n, exchangeRates([1, 1, LATER], [1, 1, LATER])),
      file(112, T - 300n, RATES.subarray(0, half), 19),
      file(112, T - 200n, RATES.subarray(half), 16),
      file(112, T + 1n, exchangeRates([2, 1, LATER], [2, 1, LATER]), 19),
    ];
    assert.equal(await gasPrice(files), '0x59');
  });

  it('falls back to earlier versions of an undecodable file, at most query.maxFileAttempts versions', async () => {
    const files = [
      file(111, T - 500n, SCHEDULES),
      file(112, T - 400n, RATES),
      file(112, T - 300n, Uint8Array.of(0xff, 0xff), 19),
      file(112, T - 200n, Uint8Array.of(0x0a), 19),
    ];
    assert.equal(await gasPrice(files), '0x59');
    assert.equal(await gasPrice(files, { query: { maxFileAttempts: 3 } }), '0x59');
    assert.equal(await gasPrice(files, { query: { maxFileAttempts: 2 } }), null);
  });

  it('reads and decodes a version of the files once, and again when the rows are loaded anew', async () => {
    await harness().prepare(setup({ extra: { filedata: [file(111, T - 100n, SCHEDULES), file(112, T - 99n, RATES)] } }));
    const priced = async () => {
      let price: unknown;
      const queries = await harness().captureQueries(async () => (price = (await get(harness(), url('0.0.5001'))).body.gas_price));
      return { price, statements: queries.length };
    };
    // the result's statement, the files' rows up to the watermark (their versions), then each file's content
    assert.deepEqual(await priced(), { price: '0x59', statements: 4 });
    assert.deepEqual(await priced(), { price: '0x59', statements: 1 });
    // the same timestamps with other content: new rows, a new version
    const cheap = feeSchedules({ entries: [[6, 1]], expiry: LATER }, { entries: [], expiry: LATER });
    await harness().prepare(setup({ extra: { filedata: [file(111, T - 100n, cheap), file(112, T - 99n, RATES)] } }));
    assert.deepEqual(await priced(), { price: '0x1', statements: 4 });
  });

  it('is null when a file is missing, and unused with an Ethereum transaction', async () => {
    assert.equal(await gasPrice([file(111, T - 1n, SCHEDULES)]), null);
    assert.equal(await gasPrice([file(112, T - 2n, RATES)]), null);
    assert.equal(await gasPrice([file(111, T + 1n, SCHEDULES), file(112, T - 2n, RATES)]), null);

    await harness().prepare(
      setup({
        extra: {
          filedata: [file(111, T - 1n, SCHEDULES), file(112, T - 2n, RATES)],
          transactions: [{ consensus_timestamp: T.toString(), payerAccountId: 8001, type: 50, valid_start_timestamp: (T - 1n).toString() }],
          ethereumtransactions: [{ consensus_timestamp: T.toString(), payer_account_id: 8001, gas_price: null }],
        },
      }),
    );
    assert.equal((await get(harness(), url('0.0.5001'))).body.gas_price, '0x');
  });
});
