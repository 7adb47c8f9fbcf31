/** Contract results, logs, state changes, actions and Ethereum transactions. */
import { bool, bytes, int, intOrNull, isMissing, json, type SetupRow } from './values.js';
import { merged, type SetupRows } from './rows.js';

/** The reference loader's hash of a contract transaction given without one. */
const DEFAULT_CONTRACT_TX_HASH = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

export function contractData(rows: SetupRows, results: SetupRow[], logs: SetupRow[], stateChanges: SetupRow[]): void {
  const mergedResults = results.map((r) =>
    merged(
      {
        amount: 0,
        bloom: null,
        call_result: null,
        consensus_timestamp: 1234510001,
        contract_id: 0,
        created_contract_ids: [],
        error_message: '',
        failed_initcode: null,
        function_parameters: '0x010102020303',
        function_result: null,
        gas_consumed: null,
        gas_limit: 1000,
        gas_used: null,
        payer_account_id: 102,
        sender_id: 101,
        transaction_hash: DEFAULT_CONTRACT_TX_HASH,
        transaction_index: 1,
        transaction_nonce: 0,
        transaction_result: 22,
      },
      r,
    ),
  );
  const mergedLogs = logs.map((l) =>
    merged(
      {
        bloom: '0x0123',
        consensus_timestamp: 1234510001,
        contract_id: 1,
        data: '0x0123',
        index: 0,
        payer_account_id: 102,
        root_contract_id: null,
        synthetic: null,
        topic0: '0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750',
        topic1: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
        topic2: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        topic3: '0xe8d47b56e8cdfa95f871b19d4f50a857217c44a95502b0811a350fec1500dd67',
        transaction_hash: DEFAULT_CONTRACT_TX_HASH,
        transaction_index: 0,
      },
      l,
    ),
  );
  const mergedChanges = stateChanges.map((s) =>
    merged(
      {
        consensus_timestamp: 1234510001,
        contract_id: 1,
        migration: false,
        payer_account_id: 2,
        slot: '0x1',
        value_read: '0x0101',
        value_written: '0xa1a1',
      },
      s,
    ),
  );

  for (const r of mergedResults) {
    const timestamp = int(r.consensus_timestamp);
    const contractId = rows.id(r.contract_id) ?? 0n;
    const payer = rows.id(r.payer_account_id);
    const hash = r.transaction_hash instanceof Buffer ? r.transaction_hash : bytes(r.transaction_hash);
    rows.add('contract_result', {
      amount: intOrNull(r.amount),
      bloom: bytes(r.bloom),
      call_result: bytes(r.call_result),
      consensus_timestamp: timestamp,
      contract_id: contractId,
      created_contract_ids: Array.isArray(r.created_contract_ids) ? r.created_contract_ids.map((c) => rows.id(c)) : null,
      error_message: isMissing(r.error_message) ? null : String(r.error_message),
      failed_initcode: bytes(r.failed_initcode),
      function_parameters: bytes(r.function_parameters) ?? Buffer.alloc(0),
      function_result: bytes(r.function_result),
      gas_consumed: intOrNull(r.gas_consumed),
      gas_limit: int(r.gas_limit),
      gas_used: intOrNull(r.gas_used),
      payer_account_id: payer,
      sender_id: rows.id(r.sender_id),
      transaction_hash: hash,
      transaction_index: isMissing(r.transaction_index) ? null : Number(r.transaction_index),
      transaction_nonce: Number(r.transaction_nonce),
      transaction_result: Number(r.transaction_result),
    });
    if (hash) {
      rows.add('contract_transaction_hash', {
        consensus_timestamp: timestamp,
        entity_id: contractId,
        hash,
        payer_account_id: payer,
        transaction_result: Number(r.transaction_result),
      });
    }
  }
  for (const l of mergedLogs) {
    rows.add('contract_log', {
      bloom: bytes(l.bloom),
      consensus_timestamp: int(l.consensus_timestamp),
      contract_id: rows.id(l.contract_id),
      data: bytes(l.data),
      index: Number(l.index),
      payer_account_id: rows.id(l.payer_account_id),
      root_contract_id: rows.id(l.root_contract_id),
      synthetic: bool(l.synthetic, null),
      topic0: bytes(l.topic0),
      topic1: bytes(l.topic1),
      topic2: bytes(l.topic2),
      topic3: bytes(l.topic3),
      transaction_hash: l.transaction_hash instanceof Buffer ? l.transaction_hash : bytes(l.transaction_hash),
      transaction_index: isMissing(l.transaction_index) ? null : Number(l.transaction_index),
    });
  }
  for (const s of mergedChanges) {
    rows.add('contract_state_change', {
      consensus_timestamp: int(s.consensus_timestamp),
      contract_id: rows.id(s.contract_id),
      migration: bool(s.migration, false),
      payer_account_id: rows.id(s.payer_account_id),
      slot: bytes(s.slot),
      value_read: bytes(s.value_read),
      value_written: bytes(s.value_written),
    });
  }

  const groups = new Map<bigint, { payer: bigint; ids: bigint[] }>();
  for (const item of [...mergedResults, ...mergedLogs, ...mergedChanges]) {
    const timestamp = int(item.consensus_timestamp);
    const contractId = rows.id(item.contract_id);
    const payer = rows.id(item.payer_account_id);
    let group = groups.get(timestamp);
    if (!group) {
      group = { payer: payer ?? 0n, ids: [] };
      groups.set(timestamp, group);
    }
    for (const id of [contractId, payer]) if (id !== null && !group.ids.includes(id)) group.ids.push(id);
  }
  for (const [timestamp, group] of groups) {
    for (const id of group.ids) {
      rows.add('contract_transaction', {
        consensus_timestamp: timestamp,
        contract_ids: group.ids,
        entity_id: id,
        payer_account_id: group.payer,
      });
    }
  }
}

export function contractAction(rows: SetupRows, fixture: SetupRow): void {
  const a = merged(
    {
      call_depth: 1,
      call_operation_type: 1,
      call_type: 1,
      caller: 8001,
      caller_type: 'CONTRACT',
      consensus_timestamp: 1234510001,
      gas: 10000,
      gas_used: 5000,
      index: 1,
      payer_account_id: 102,
      result_data_type: 11,
      value: 100,
    },
    fixture,
  );
  rows.add('contract_action', {
    call_depth: Number(a.call_depth),
    call_operation_type: Number(a.call_operation_type),
    call_type: Number(a.call_type),
    caller: rows.id(a.caller),
    caller_type: String(a.caller_type),
    consensus_timestamp: int(a.consensus_timestamp),
    gas: int(a.gas),
    gas_used: int(a.gas_used),
    index: Number(a.index),
    input: bytes(a.input),
    payer_account_id: rows.id(a.payer_account_id),
    recipient_account: intOrNull(a.recipient_account),
    recipient_address: bytes(a.recipient_address),
    recipient_contract: rows.id(a.recipient_contract),
    result_data: bytes(a.result_data),
    result_data_type: Number(a.result_data_type),
    value: int(a.value),
  });
}

export function ethereumTransaction(rows: SetupRows, fixture: SetupRow): void {
  const e = merged(
    {
      consensus_timestamp: 187654000123456n,
      data: '0x000000000',
      gas_limit: 1000000,
      gas_price: '0xAD78EBC5AC620000',
      hash: '0x0000000000000000000000000000000000000000000000000000000000000123',
      max_gas_allowance: 10000,
      nonce: 1,
      payer_account_id: 5001,
      recovery_id: 1,
      signature_r: '0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c042',
      signature_s: '0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b354',
      signature_v: '0x1b',
      to_address: '0x0000000000000000000000000000000000001389',
      type: 2,
      value: '0x0',
    },
    fixture,
  );
  rows.add('ethereum_transaction', {
    access_list: json(e.access_list),
    authorization_list: json(e.authorization_list),
    call_data: bytes(e.call_data),
    call_data_id: rows.id(e.call_data_id),
    chain_id: bytes(e.chain_id),
    consensus_timestamp: int(e.consensus_timestamp),
    data: bytes(e.data),
    gas_limit: int(e.gas_limit),
    gas_price: bytes(e.gas_price),
    hash: bytes(e.hash),
    max_fee_per_gas: bytes(e.max_fee_per_gas),
    max_gas_allowance: int(e.max_gas_allowance),
    max_priority_fee_per_gas: bytes(e.max_priority_fee_per_gas),
    nonce: int(e.nonce),
    payer_account_id: rows.id(e.payer_account_id),
    recovery_id: isMissing(e.recovery_id) ? null : Number(e.recovery_id),
    signature_r: bytes(e.signature_r),
    signature_s: bytes(e.signature_s),
    signature_v: bytes(e.signature_v),
    to_address: bytes(e.to_address),
    type: Number(e.type),
    value: bytes(e.value),
  });
}
