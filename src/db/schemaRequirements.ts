/**
 * What the service reads from the database, checked at start-up so that a database of another
 * mirror node version fails with one list of what is missing instead of request by request.
 * test/db/schemaRequirements.test.ts derives the columns every request reads from its query plans
 * and checks that this list holds them.
 */
import type { Queryable } from './db.js';

export const READ_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  account_balance: ['account_id', 'balance', 'consensus_timestamp'],
  contract_log: ['bloom', 'consensus_timestamp', 'contract_id', 'data', 'index', 'topic0', 'topic1', 'topic2', 'topic3'],
  contract_result: [
    'amount',
    'bloom',
    'call_result',
    'consensus_timestamp',
    'contract_id',
    'created_contract_ids',
    'error_message',
    'failed_initcode',
    'function_parameters',
    'function_result',
    'gas_consumed',
    'gas_limit',
    'gas_used',
    'payer_account_id',
    'sender_id',
    'transaction_hash',
    'transaction_index',
    'transaction_nonce',
    'transaction_result',
  ],
  contract_state_change: ['consensus_timestamp', 'contract_id', 'migration', 'slot', 'value_read', 'value_written'],
  contract_transaction: ['consensus_timestamp', 'contract_ids', 'entity_id', 'payer_account_id'],
  contract_transaction_hash: ['consensus_timestamp', 'entity_id', 'hash', 'transaction_result'],
  crypto_transfer: ['amount', 'consensus_timestamp', 'entity_id', 'is_approval', 'payer_account_id'],
  entity: [
    'alias',
    'auto_renew_account_id',
    'auto_renew_period',
    'balance',
    'balance_timestamp',
    'created_timestamp',
    'decline_reward',
    'delegation_address',
    'deleted',
    'ethereum_nonce',
    'evm_address',
    'expiration_timestamp',
    'id',
    'key',
    'max_automatic_token_associations',
    'memo',
    'num',
    'obtainer_id',
    'permanent_removal',
    'proxy_account_id',
    'public_key',
    'realm',
    'receiver_sig_required',
    'shard',
    'stake_period_start',
    'staked_account_id',
    'staked_node_id',
    'timestamp_range',
    'type',
  ],
  entity_history: [
    'alias',
    'auto_renew_period',
    'balance',
    'balance_timestamp',
    'created_timestamp',
    'decline_reward',
    'delegation_address',
    'deleted',
    'ethereum_nonce',
    'evm_address',
    'expiration_timestamp',
    'id',
    'key',
    'max_automatic_token_associations',
    'memo',
    'num',
    'receiver_sig_required',
    'stake_period_start',
    'staked_account_id',
    'staked_node_id',
    'timestamp_range',
    'type',
  ],
  entity_stake: [
    'end_stake_period',
    'id',
    'pending_reward',
    'stake_total_start',
    'staked_node_id_start',
    'staked_to_me',
    'timestamp_range',
  ],
  entity_stake_history: ['end_stake_period', 'id', 'pending_reward', 'timestamp_range'],
  entity_transaction: ['consensus_timestamp', 'entity_id', 'payer_account_id', 'type'],
  ethereum_transaction: [
    'access_list',
    'authorization_list',
    'call_data',
    'call_data_id',
    'chain_id',
    'consensus_timestamp',
    'data',
    'gas_limit',
    'gas_price',
    'hash',
    'max_fee_per_gas',
    'max_gas_allowance',
    'max_priority_fee_per_gas',
    'nonce',
    'payer_account_id',
    'recovery_id',
    'signature_r',
    'signature_s',
    'signature_v',
    'to_address',
    'type',
    'value',
  ],
  file_data: ['consensus_timestamp', 'entity_id', 'file_data', 'transaction_type'],
  nft: [
    'account_id',
    'created_timestamp',
    'delegating_spender',
    'deleted',
    'metadata',
    'serial_number',
    'spender',
    'timestamp_range',
    'token_id',
  ],
  record_file: [
    'bytes',
    'consensus_end',
    'consensus_start',
    'count',
    'gas_used',
    'hapi_version_major',
    'hapi_version_minor',
    'hapi_version_patch',
    'hash',
    'index',
    'logs_bloom',
    'name',
    'prev_hash',
    'size',
  ],
  staking_reward_transfer: ['account_id', 'amount', 'consensus_timestamp'],
  token_account: ['account_id', 'associated', 'balance', 'token_id'],
  token_balance: ['account_id', 'balance', 'consensus_timestamp', 'token_id'],
  token_transfer: ['account_id', 'amount', 'consensus_timestamp', 'is_approval', 'payer_account_id', 'token_id'],
  transaction: [
    'batch_key',
    'charged_tx_fee',
    'congestion_pricing_multiplier',
    'consensus_timestamp',
    'entity_id',
    'errata',
    'high_volume',
    'high_volume_pricing_multiplier',
    'index',
    'initial_balance',
    'inner_transactions',
    'itemized_transfer',
    'max_custom_fees',
    'max_fee',
    'memo',
    'nft_transfer',
    'node_account_id',
    'nonce',
    'parent_consensus_timestamp',
    'payer_account_id',
    'result',
    'scheduled',
    'transaction_bytes',
    'transaction_hash',
    'transaction_record_bytes',
    'type',
    'valid_duration_seconds',
    'valid_start_ns',
  ],
};

/** How missingSchema marks a table that is there but that the role may not read. */
export const NO_SELECT = ': no SELECT privilege for this role';

/** What to ask the database's owner to run so that `role` can read `tables` (a list, or all of them). */
export function grantAdvice(role: string, tables: readonly string[]): string {
  const quoted = `"${role.replace(/"/g, '""')}"`;
  return `the role ${role} may not read ${tables.join(', ')} (permission denied); as the owner of the mirror node database run \`GRANT USAGE ON SCHEMA public TO ${quoted}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${quoted};\` or connect as the mirror node's own readonly or mirror_api role`;
}

/** A table every mirror node database has and that the service's own migrations never create. */
const MIRROR_NODE_MARKER = 'flyway_schema_history';

/** Whether the database was created by the mirror node's own migrations (its migration history is there). */
export async function isMirrorNodeDatabase(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ found: boolean }>(`select to_regclass($1) is not null as found`, [MIRROR_NODE_MARKER]);
  return rows[0]?.found === true;
}

/**
 * What of READ_COLUMNS the database lacks, or the connected role cannot read, one line each
 * (`table crypto_transfer`, `column record_file.logs_bloom`, `table entity: no SELECT privilege`).
 * Reads only the catalog.
 */
export async function missingSchema(
  db: Queryable,
  required: Readonly<Record<string, readonly string[]>> = READ_COLUMNS,
): Promise<string[]> {
  const tables = Object.keys(required);
  const rows = await db.query<{ table: string; readable: boolean | null; columns: string[] | null }>(
    `select t.name as table,
            case when c.oid is null then null else has_table_privilege(c.oid, 'select') end as readable,
            (select array_agg(a.attname::text) from pg_catalog.pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
       from unnest($1::text[]) with ordinality as t(name, position)
       left join pg_catalog.pg_class c on c.oid = to_regclass(t.name)
      order by t.position`,
    [tables],
  );
  const missing: string[] = [];
  for (const row of rows) {
    if (row.readable === null) {
      missing.push(`table ${row.table}`);
      continue;
    }
    const present = new Set(row.columns ?? []);
    for (const column of required[row.table] ?? []) if (!present.has(column)) missing.push(`column ${row.table}.${column}`);
    if (!row.readable) missing.push(`table ${row.table}${NO_SELECT}`);
  }
  return missing;
}
