/** Contract result rows → the ContractResultDetails object both endpoints return. */
import {
  bigintToHexQuantity,
  bytesToBigInt,
  toHex,
  toHexNonQuantity,
  padHex,
  toHexQuantity,
  uint256Hex,
  type Bytes,
} from '../../domain/bytes.js';
import { blockGasUsed } from '../../domain/block.js';
import { formatEntityId, longZeroAddress } from '../../domain/entityId.js';
import { functionResultSenderAlias } from '../../domain/protobuf.js';
import { isSuccessful, resultName } from '../../domain/resultCodes.js';
import { formatTimestamp } from '../../domain/timestamp.js';
import type {
  ContractLogRow,
  ContractResultDetail,
  ContractResultRow,
  ContractStateChangeRow,
  EthereumTransactionRow,
  FileContent,
} from './queries.js';

const WEIBARS_PER_TINYBAR = 10_000_000_000n;
const EMPTY_BLOOM = '0x' + '00'.repeat(256);

export interface ContractResultViewOptions {
  /** amounts and gas prices in tinybars (true, the default) or as stored, in weibars */
  hbar: boolean;
  /** `network.chainId`, used when there is no Ethereum transaction */
  chainId: string;
  /** `response.enableDelegationAddress`: adds `authorization_list` for Ethereum transactions */
  delegationAddress: boolean;
  /** gas price from the fee schedule files (no Ethereum transaction only) */
  gasPrice: bigint | null;
}

const isEmpty = (bytes: Bytes | null | undefined): boolean => !bytes || bytes.length === 0;

/** An entity's EVM address (rendered as hex by the database) when it has one, else its long-zero address. */
function addressOf(evmAddressHex: string | null, id: bigint): string | null {
  return evmAddressHex ? '0x' + evmAddressHex : longZeroAddress(id);
}

/**
 * Stored JSON as the reference returns it: it reads jsonb with plain JSON.parse, so integers beyond
 * 2^53 come out as the nearest double.
 */
function plainJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainJson(v)]));
  return value;
}

/** An access or authorization list; NULL (and anything that is not a list, which the importer never writes) is `[]`. */
function jsonList(value: unknown): unknown[] {
  return Array.isArray(value) ? (plainJson(value) as unknown[]) : [];
}

/** `from`: the sender's long-zero address; without a sender, the alias recorded in the function result. */
function senderAddress(result: ContractResultRow): string | null {
  if (result.sender_id !== null) return longZeroAddress(result.sender_id);
  const alias = result.function_result ? functionResultSenderAlias(result.function_result) : null;
  return alias ? toHex(alias) : null;
}

function logView(row: ContractLogRow) {
  return {
    address: addressOf(row.evm_address, row.contract_id),
    bloom: '0x' + (row.bloom ?? ''),
    contract_id: formatEntityId(row.contract_id),
    data: padHex(row.data ?? '', 64),
    index: row.index,
    topics: [row.topic0, row.topic1, row.topic2, row.topic3].filter((t): t is string => t !== null).map((t) => uint256Hex(t)!),
  };
}

function stateChangeView(row: ContractStateChangeRow) {
  return {
    address: addressOf(row.evm_address, row.contract_id),
    contract_id: formatEntityId(row.contract_id),
    slot: uint256Hex(row.slot),
    value_read: uint256Hex(row.value_read),
    value_written: uint256Hex(row.value_written),
  };
}

/** A weibar quantity in tinybars, as hex; `0x` when NULL or empty. */
function tinybarHex(weibars: Bytes | null): string {
  return isEmpty(weibars) ? '0x' : bigintToHexQuantity(bytesToBigInt(weibars!) / WEIBARS_PER_TINYBAR);
}

/** The fields an Ethereum transaction contributes (or overrides). */
function ethereumFields(
  eth: EthereumTransactionRow,
  result: ContractResultRow,
  callDataFile: FileContent | null,
  options: ContractResultViewOptions,
) {
  const value = isEmpty(eth.value) ? null : eth.value!;
  const money = options.hbar
    ? {
        // the value is a Java BigInteger's two's-complement bytes; division truncates toward zero like Java's
        amount: value === null ? null : bytesToBigInt(value, true) / WEIBARS_PER_TINYBAR,
        gas_price: tinybarHex(eth.gas_price),
        max_fee_per_gas: tinybarHex(eth.max_fee_per_gas),
        max_priority_fee_per_gas: tinybarHex(eth.max_priority_fee_per_gas),
      }
    : {
        // the reference fails (500) on an empty value; null is the honest rendering
        amount: value === null ? null : bytesToBigInt(value),
        gas_price: toHexQuantity(eth.gas_price),
        max_fee_per_gas: toHexQuantity(eth.max_fee_per_gas),
        max_priority_fee_per_gas: toHexQuantity(eth.max_priority_fee_per_gas),
      };

  let v: bigint | number | null = eth.recovery_id;
  if (eth.type === 0 && eth.signature_v !== null) {
    // the reference fails (500) on an empty signature_v; null is the honest rendering
    v = isEmpty(eth.signature_v) ? null : bytesToBigInt(eth.signature_v);
  }

  let functionParameters: string | undefined;
  if (!isEmpty(eth.call_data)) functionParameters = toHexNonQuantity(eth.call_data);
  else if (isEmpty(result.function_parameters) && callDataFile) functionParameters = toHex(callDataFile.content);

  return {
    ...money,
    access_list: jsonList(eth.access_list),
    ...(options.delegationAddress ? { authorization_list: jsonList(eth.authorization_list) } : {}),
    chain_id: toHexQuantity(eth.chain_id),
    gas_limit: eth.gas_limit,
    nonce: eth.nonce,
    r: toHexNonQuantity(eth.signature_r),
    s: toHexNonQuantity(eth.signature_s),
    type: eth.type,
    v,
    ...(isEmpty(eth.to_address) ? {} : { to: toHexNonQuantity(eth.to_address) }),
    ...(functionParameters === undefined ? {} : { function_parameters: functionParameters }),
  };
}

export function contractResultView(detail: ContractResultDetail, options: ContractResultViewOptions) {
  const { result, block, eth, logs, stateChanges } = detail;
  const successful = isSuccessful(result.transaction_result);
  const status = successful ? '0x1' : '0x0';
  const name = resultName(result.transaction_result);

  let failedInitcode: string | null = null;
  if (!isEmpty(result.failed_initcode)) failedInitcode = toHexNonQuantity(result.failed_initcode);
  else if (!successful && eth && !isEmpty(eth.call_data)) failedInitcode = toHexNonQuantity(eth.call_data);

  // the result as rendered without an Ethereum transaction; ethereumFields overlays a wrapped one
  const base = {
    access_list: [] as unknown[],
    address: addressOf(result.evm_address, result.contract_id),
    amount: result.amount,
    block_gas_used: blockGasUsed(block?.gas_used ?? null),
    block_hash: '0x' + (block?.hash ?? ''),
    block_number: block?.index ?? null,
    bloom: result.bloom !== null && result.bloom.length === 0 ? EMPTY_BLOOM : toHex(result.bloom),
    call_result: toHex(result.call_result),
    chain_id: options.chainId as string | null,
    contract_id: formatEntityId(result.contract_id),
    created_contract_ids: (result.created_contract_ids ?? []).map(formatEntityId),
    error_message: result.error_message ? result.error_message : null,
    failed_initcode: failedInitcode,
    from: senderAddress(result),
    function_parameters: toHex(result.function_parameters),
    gas_consumed: result.gas_consumed,
    gas_limit: result.gas_limit,
    gas_price: options.gasPrice === null ? null : bigintToHexQuantity(options.gasPrice),
    gas_used: result.gas_used,
    hash: toHexNonQuantity(result.transaction_hash),
    logs: logs.map(logView),
    max_fee_per_gas: null as string | null,
    max_priority_fee_per_gas: null as string | null,
    nonce: null as bigint | null,
    r: null as string | null,
    result: name,
    s: null as string | null,
    state_changes: stateChanges.map(stateChangeView),
    status,
    timestamp: formatTimestamp(result.consensus_timestamp),
    to: longZeroAddress(result.contract_id),
    transaction_index: result.transaction_index,
    type: 0,
    v: null as bigint | number | null,
  };

  if (!eth) {
    return options.hbar || result.amount === null ? base : { ...base, amount: result.amount * WEIBARS_PER_TINYBAR };
  }
  return {
    ...base,
    ...ethereumFields(eth, result, detail.callDataFile, options),
    ...(!successful && !result.error_message ? { error_message: name } : {}),
  };
}
