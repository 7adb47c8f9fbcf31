/**
 * The tables the generator fills and the column order of its COPY rows. Each table has one
 * buffered writer; the generator awaits `flushFull()` between blocks, which hands every buffer
 * over a size threshold to the sink (and so applies the database's back-pressure).
 */
import type { RowSink } from './sink.js';

export interface TableSpec {
  readonly name: string;
  readonly columns: readonly string[];
}

const ENTITY_COLUMNS = [
  'id',
  'shard',
  'realm',
  'num',
  'type',
  'alias',
  'evm_address',
  'key',
  'public_key',
  'memo',
  'balance',
  'balance_timestamp',
  'created_timestamp',
  'expiration_timestamp',
  'auto_renew_period',
  'auto_renew_account_id',
  'deleted',
  'decline_reward',
  'ethereum_nonce',
  'max_automatic_token_associations',
  'receiver_sig_required',
  'staked_account_id',
  'staked_node_id',
  'stake_period_start',
  'timestamp_range',
] as const;

const ENTITY_STAKE_COLUMNS = [
  'id',
  'end_stake_period',
  'pending_reward',
  'staked_node_id_start',
  'staked_to_me',
  'stake_total_start',
  'timestamp_range',
] as const;

export const TABLES = {
  entity: { name: 'entity', columns: ENTITY_COLUMNS },
  entityHistory: { name: 'entity_history', columns: ENTITY_COLUMNS },
  entityStake: { name: 'entity_stake', columns: ENTITY_STAKE_COLUMNS },
  entityStakeHistory: { name: 'entity_stake_history', columns: ENTITY_STAKE_COLUMNS },
  accountBalance: { name: 'account_balance', columns: ['consensus_timestamp', 'account_id', 'balance'] },
  tokenBalance: { name: 'token_balance', columns: ['consensus_timestamp', 'account_id', 'token_id', 'balance'] },
  tokenAccount: {
    name: 'token_account',
    columns: [
      'account_id',
      'token_id',
      'associated',
      'automatic_association',
      'balance',
      'balance_timestamp',
      'created_timestamp',
      'freeze_status',
      'kyc_status',
      'timestamp_range',
    ],
  },
  token: {
    name: 'token',
    columns: [
      'token_id',
      'created_timestamp',
      'decimals',
      'initial_supply',
      'total_supply',
      'max_supply',
      'name',
      'symbol',
      'treasury_account_id',
      'type',
      'supply_type',
      'pause_status',
      'freeze_default',
      'freeze_status',
      'kyc_status',
      'supply_key',
      'metadata',
      'timestamp_range',
    ],
  },
  customFee: { name: 'custom_fee', columns: ['entity_id', 'fixed_fees', 'fractional_fees', 'royalty_fees', 'timestamp_range'] },
  transaction: {
    name: 'transaction',
    columns: [
      'consensus_timestamp',
      'type',
      'result',
      'payer_account_id',
      'valid_start_ns',
      'valid_duration_seconds',
      'node_account_id',
      'entity_id',
      'initial_balance',
      'max_fee',
      'charged_tx_fee',
      'memo',
      'transaction_hash',
      'scheduled',
      'nonce',
      'parent_consensus_timestamp',
      'index',
      'nft_transfer',
    ],
  },
  transactionHash: { name: 'transaction_hash', columns: ['consensus_timestamp', 'hash', 'hash_suffix', 'payer_account_id'] },
  cryptoTransfer: { name: 'crypto_transfer', columns: ['consensus_timestamp', 'entity_id', 'amount', 'payer_account_id', 'is_approval'] },
  tokenTransfer: {
    name: 'token_transfer',
    columns: ['consensus_timestamp', 'token_id', 'account_id', 'amount', 'payer_account_id', 'is_approval'],
  },
  stakingRewardTransfer: { name: 'staking_reward_transfer', columns: ['consensus_timestamp', 'account_id', 'amount', 'payer_account_id'] },
  entityTransaction: { name: 'entity_transaction', columns: ['consensus_timestamp', 'entity_id', 'payer_account_id', 'result', 'type'] },
  nft: {
    name: 'nft',
    columns: [
      'token_id',
      'serial_number',
      'account_id',
      'created_timestamp',
      'deleted',
      'metadata',
      'spender',
      'delegating_spender',
      'timestamp_range',
    ],
  },
  recordFile: {
    name: 'record_file',
    columns: [
      'index',
      'consensus_start',
      'consensus_end',
      'count',
      'hash',
      'prev_hash',
      'name',
      'gas_used',
      'logs_bloom',
      'size',
      'digest_algorithm',
      'file_hash',
      'hapi_version_major',
      'hapi_version_minor',
      'hapi_version_patch',
      'load_start',
      'load_end',
      'node_id',
      'sidecar_count',
      'software_version_major',
      'software_version_minor',
      'software_version_patch',
      'version',
    ],
  },
  contract: { name: 'contract', columns: ['id', 'file_id', 'initcode', 'runtime_bytecode'] },
  contractResult: {
    name: 'contract_result',
    columns: [
      'consensus_timestamp',
      'contract_id',
      'payer_account_id',
      'sender_id',
      'amount',
      'gas_limit',
      'gas_used',
      'gas_consumed',
      'bloom',
      'call_result',
      'function_parameters',
      'function_result',
      'error_message',
      'failed_initcode',
      'created_contract_ids',
      'transaction_hash',
      'transaction_index',
      'transaction_nonce',
      'transaction_result',
    ],
  },
  contractLog: {
    name: 'contract_log',
    columns: [
      'consensus_timestamp',
      'index',
      'contract_id',
      'root_contract_id',
      'payer_account_id',
      'bloom',
      'data',
      'topic0',
      'topic1',
      'topic2',
      'topic3',
      'transaction_hash',
      'transaction_index',
      'synthetic',
    ],
  },
  contractStateChange: {
    name: 'contract_state_change',
    columns: ['consensus_timestamp', 'contract_id', 'slot', 'value_read', 'value_written', 'payer_account_id', 'migration'],
  },
  contractTransaction: { name: 'contract_transaction', columns: ['consensus_timestamp', 'entity_id', 'payer_account_id', 'contract_ids'] },
  contractTransactionHash: {
    name: 'contract_transaction_hash',
    columns: ['consensus_timestamp', 'hash', 'entity_id', 'payer_account_id', 'transaction_result'],
  },
  ethereumTransaction: {
    name: 'ethereum_transaction',
    columns: [
      'consensus_timestamp',
      'payer_account_id',
      'hash',
      'type',
      'nonce',
      'chain_id',
      'gas_limit',
      'gas_price',
      'max_fee_per_gas',
      'max_priority_fee_per_gas',
      'max_gas_allowance',
      'value',
      'call_data',
      'call_data_id',
      'data',
      'signature_r',
      'signature_s',
      'signature_v',
      'recovery_id',
      'to_address',
      'access_list',
      'authorization_list',
    ],
  },
  fileData: { name: 'file_data', columns: ['consensus_timestamp', 'entity_id', 'transaction_type', 'file_data'] },
} as const satisfies Record<string, TableSpec>;

export type TableKey = keyof typeof TABLES;

/** Every table the generator writes, by name. */
export const GENERATED_TABLES: readonly string[] = Object.values(TABLES).map((t) => t.name);

/**
 * How one table of the database at hand differs from `TABLES`: the columns it lacks are left out
 * of the COPY (`spec` lists what is written, `pick` the positions of those values in a row of
 * `TABLES` order). Columns the database has beyond `TABLES` get their defaults or NULL.
 */
export interface TableLayout {
  spec: TableSpec;
  pick: readonly number[];
}

export type TableLayouts = Partial<Record<TableKey, TableLayout>>;

/** Rows of one table, buffered as COPY text until the sink takes them. */
export class TableWriter {
  rows = 0;
  private parts: string[] = [];
  private size = 0;
  /** the table as written (the database's columns), and where its values sit in a row */
  readonly target: TableSpec;
  private readonly pick: readonly number[] | null;

  constructor(
    readonly spec: TableSpec,
    private readonly sink: RowSink,
    layout?: TableLayout,
  ) {
    this.target = layout?.spec ?? spec;
    this.pick = layout?.pick ?? null;
  }

  /** One row from its column values, already in COPY text form, in `spec.columns` order. */
  add(...values: string[]): void {
    const pick = this.pick;
    const line = (pick ? pick.map((i) => values[i]!) : values).join('\t') + '\n';
    this.parts.push(line);
    this.size += line.length;
    this.rows++;
  }

  get bufferedBytes(): number {
    return this.size;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    await this.sink.write(this.target, chunk);
  }
}

export type Writers = { [K in TableKey]: TableWriter };

export function createWriters(sink: RowSink, layouts: TableLayouts = {}): Writers {
  const out = {} as Record<TableKey, TableWriter>;
  for (const [key, spec] of Object.entries(TABLES) as [TableKey, TableSpec][]) out[key] = new TableWriter(spec, sink, layouts[key]);
  return out;
}

/** Hands every buffer above `threshold` characters to the sink. */
export async function flushFull(writers: Writers, threshold: number): Promise<void> {
  for (const w of Object.values(writers)) if (w.bufferedBytes >= threshold) await w.flush();
}

export async function flushAll(writers: Writers): Promise<void> {
  for (const w of Object.values(writers)) await w.flush();
}

export function rowCounts(writers: Writers): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const w of Object.values(writers)) counts[w.spec.name] = w.rows;
  return counts;
}

export function totalRows(writers: Writers): number {
  let n = 0;
  for (const w of Object.values(writers)) n += w.rows;
  return n;
}
