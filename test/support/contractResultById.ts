/** Fixtures of GET /api/v1/contracts/results/{transactionIdOrHash}: one Ethereum contract call and the result it renders as. */

export const VALID_START = 1_676_540_000_000_000_000n;
export const T = VALID_START + 5_000_000_000n;
export const TX_ID = '0.0.8001-1676540000-000000000';
export const HASH = 'ab'.repeat(32);
const EVM = '25fe26adc577cc89172e6156c9e24f7b9751b762';
const R = '0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c042';
const S = '0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b354';
const BLOCK_HASH = 'cd'.repeat(48);
export const url = (idOrHash: string, query = '') => `/api/v1/contracts/results/${idOrHash}${query}`;
export const pad64 = (hex: string) => '0x' + hex.padStart(64, '0');
export const longZero = (num: number) => '0x' + num.toString(16).padStart(40, '0');
export const INVALID_TRANSACTION_ID =
  'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds';

export type Row = Record<string, unknown>;

/** A contract call by 0.0.8001 to 0.0.5001 (which also touches 0.0.5002), wrapped in an Ethereum transaction. */
export function setup(options: { result?: Row; eth?: Row | null; transaction?: Row; extra?: Row } = {}) {
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

export const EXPECTED_ETH_RESULT = {
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
