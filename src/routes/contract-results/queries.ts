/**
 * SQL of the contract result endpoints. Every lookup is keyed by a consensus timestamp (primary keys
 * of contract_result, contract_log, contract_state_change, ethereum_transaction, transaction,
 * contract_transaction), by transaction id (transaction__payer_account_id), by Ethereum hash
 * (contract_transaction_hash__hash), by EVM address (entity__evm_address) or by file and
 * timestamp (file_data__entity_timestamp).
 */
import type { Queryable } from '../../db/db.js';
import { arraysOf, selectList, statementShape } from '../../db/statements.js';
import { MAX_NUM } from '../../domain/entityId.js';
import { SUCCESS } from '../../domain/resultCodes.js';
import { TransactionType } from '../../domain/transactionTypes.js';

/** The `contract_transaction` row of an execution: every entity it involved, and its payer. */
export interface InvolvedContracts {
  consensus_timestamp: bigint;
  contract_ids: bigint[];
  payer_account_id: bigint;
}

/**
 * How an execution is found: SQL yielding its `contract_transaction` row (consensus_timestamp,
 * contract_ids, payer_account_id) and `requested_contract`, the contract named by the request
 * (route F), whose migration state changes are kept; from `values` as $1…; the SQL is that of
 * the lookup's kind (INVOLVED_SQL).
 */
export interface ExecutionLookup {
  kind: LookupKind;
  values: unknown[];
}

type LookupKind = 'transaction id' | 'hash' | 'entity' | 'evm address';

const BY_TRANSACTION_ID_SQL = `select ct.consensus_timestamp, ct.contract_ids, ct.payer_account_id, null::bigint as requested_contract
  from (select consensus_timestamp, payer_account_id from transaction
        where payer_account_id = $1 and consensus_timestamp >= $2 and consensus_timestamp <= $3
          and valid_start_ns = $2 and nonce = $4
        order by (result = ${SUCCESS}) desc, consensus_timestamp desc
        limit 1) tx
  join contract_transaction ct on ct.consensus_timestamp = tx.consensus_timestamp and ct.entity_id = tx.payer_account_id`;

/**
 * The execution of a transaction id: the transaction with that payer, valid start and nonce whose
 * consensus timestamp is within [validStart, maxTimestamp], a SUCCESS first, else the latest; then
 * its `contract_transaction` row for the payer.
 */
export function byTransactionId(payer: bigint, validStartNs: bigint, maxTimestamp: bigint, nonce: number): ExecutionLookup {
  return { kind: 'transaction id', values: [payer, validStartNs, maxTimestamp, nonce] };
}

const BY_HASH_SQL = `select ct.consensus_timestamp, ct.contract_ids, ct.payer_account_id, null::bigint as requested_contract
  from (select consensus_timestamp, entity_id from contract_transaction_hash
        where hash = $1
        order by (transaction_result = ${SUCCESS}) desc, consensus_timestamp desc
        limit 1) h
  join contract_transaction ct on ct.consensus_timestamp = h.consensus_timestamp and ct.entity_id = h.entity_id`;

/**
 * The execution of an Ethereum transaction hash: the `contract_transaction_hash` row with exactly
 * that hash, a SUCCESS first, else the latest; then its `contract_transaction` row for the contract.
 */
export function byHash(hash: Uint8Array): ExecutionLookup {
  return { kind: 'hash', values: [hash] };
}

// the reference keeps the named contract's migration rows only for a truthy (non-zero) id
const BY_ENTITY_SQL = `select ct.consensus_timestamp, ct.contract_ids, ct.payer_account_id, nullif($2::bigint, 0) as requested_contract
  from contract_transaction ct where ct.consensus_timestamp = $1 and ct.entity_id = $2`;

/** The execution at `timestamp` that involved `entityId`. */
export function byEntity(timestamp: bigint, entityId: bigint): ExecutionLookup {
  return { kind: 'entity', values: [timestamp, entityId] };
}

/** Live (deleted = false) contracts and accounts holding the EVM address in `placeholder`. */
const HOLDERS_OF = (placeholder: string) =>
  `select id from entity where evm_address = ${placeholder} and deleted = false and type in ('CONTRACT', 'ACCOUNT')`;

const BY_EVM_ADDRESS_SQL = `select ct.consensus_timestamp, ct.contract_ids, ct.payer_account_id, ct.entity_id as requested_contract
  from contract_transaction ct
  where ct.consensus_timestamp = $1 and ct.entity_id = (select min(id) from (${HOLDERS_OF('$2')} limit 2) m having count(*) = 1)`;

/**
 * The execution at `timestamp` that involved the one live contract or account holding `address`;
 * none when no entity or more than one holds it (see findContractIdsByEvmAddress to tell them apart).
 */
export function byEvmAddress(timestamp: bigint, address: Uint8Array): ExecutionLookup {
  return { kind: 'evm address', values: [timestamp, address] };
}

const CONTRACT_IDS_BY_EVM_ADDRESS_SQL = `${HOLDERS_OF('$1')} limit 2`;

/** Live contracts and accounts holding this EVM address; at most two, to detect ambiguity. */
export async function findContractIdsByEvmAddress(db: Queryable, address: Uint8Array): Promise<bigint[]> {
  const rows = await db.query<{ id: bigint }>(CONTRACT_IDS_BY_EVM_ADDRESS_SQL, [address]);
  return rows.map((r) => r.id);
}

/** File content as the reference assembles it: the latest create/update plus every later append, in order. */
export interface FileContent {
  /** NULL when the file does not exist within the bounds (or holds only NULL data) */
  content: Uint8Array | null;
  /** timestamp of the create/update the content starts with; null when the file does not exist */
  first_timestamp: bigint | null;
}

const { FILEAPPEND, FILECREATE, FILEUPDATE } = TransactionType;
/** The file_data rows of a file's content, and of those the ones that start it anew. */
const FILE_ROW_TYPES = `${FILEAPPEND}, ${FILECREATE}, ${FILEUPDATE}`;
const FILE_START_TYPES = `${FILECREATE}, ${FILEUPDATE}`;

/** A bound on `file_data.consensus_timestamp`: an operator and an SQL expression. */
type TimestampBound = readonly [operator: '<=' | '<', value: string];

/**
 * A scalar-aggregate subquery over `file_data` giving `summary` (a select list over the rows `f`) of
 * file `fileId` (an SQL expression): its rows from the latest create/update on, with `bounds`
 * limiting both the create/update searched for and the rows. Callers may append further `and …`
 * conditions (gates) to it.
 */
function fileRowsSql(summary: string, fileId: string, bounds: readonly TimestampBound[]): string {
  const bounded = (alias: string) => bounds.map(([op, value]) => ` and ${alias}.consensus_timestamp ${op} ${value}`).join('');
  return `select ${summary}
     from file_data f
     where f.entity_id = ${fileId} and f.transaction_type in (${FILE_ROW_TYPES})${bounded('f')}
       and f.consensus_timestamp >= (
         select max(c.consensus_timestamp) from file_data c
         where c.entity_id = ${fileId} and c.transaction_type in (${FILE_START_TYPES})${bounded('c')})`;
}

/** The file's content (`content`, `first_timestamp`: see FileContent). */
const FILE_CONTENT = `string_agg(f.file_data, ''::bytea order by f.consensus_timestamp) as content, min(f.consensus_timestamp) as first_timestamp`;

/**
 * Which version of the file it is, without its content (`version`: see FileVersion): the first and
 * last row's timestamps and the row versions (`xmin`) of the rows, so that rows loaded again
 * (fixtures, a re-import) never give a key seen before. NULL when there is no file.
 */
const FILE_VERSION = `min(f.consensus_timestamp) || '/' || max(f.consensus_timestamp) || '/' || string_agg(f.xmin::text, ',' order by f.consensus_timestamp) as version`;

/** A version of a system file at a timestamp; `key` is null when the file does not exist. */
export interface FileVersion {
  key: string | null;
}

/** The versions of the fee schedule (`$1`) and exchange rate (`$2`) files at `$3`, by a statement of their own. */
const FILE_VERSIONS_SQL = `select (${fileRowsSql(FILE_VERSION, '$1', [['<=', '$3']])}) as fee_schedule,
  (${fileRowsSql(FILE_VERSION, '$2', [['<=', '$3']])}) as exchange_rate`;

export async function findFileVersions(
  db: Queryable,
  files: { feeSchedule: bigint; exchangeRate: bigint },
  asOf: bigint,
): Promise<{ feeSchedule: FileVersion; exchangeRate: FileVersion }> {
  const rows = await db.query<{ fee_schedule: string | null; exchange_rate: string | null }>(FILE_VERSIONS_SQL, [
    files.feeSchedule,
    files.exchangeRate,
    asOf,
  ]);
  return { feeSchedule: { key: rows[0]?.fee_schedule ?? null }, exchangeRate: { key: rows[0]?.exchange_rate ?? null } };
}

/** A file_data row of a system file, without its content. */
export interface SystemFileRow {
  entity_id: bigint;
  consensus_timestamp: bigint;
  transaction_type: number;
}

// the newest transaction or contract result: rows are committed with their transaction, in consensus order
const FILE_ROWS_AFTER_SQL = `with w as (
    select greatest((select max(consensus_timestamp) from transaction), (select max(consensus_timestamp) from contract_result)) as watermark
  )
  select w.watermark, f.entity_id, f.consensus_timestamp, f.transaction_type
  from w left join file_data f
    on f.entity_id in ($1, $2) and f.transaction_type in (${FILE_ROW_TYPES}) and f.consensus_timestamp > $3 and f.consensus_timestamp <= w.watermark
  order by f.consensus_timestamp`;

/**
 * The rows of files `fileIds` (without content) after `after` up to the watermark, the newest
 * consensus timestamp of a transaction or contract result in the same snapshot (null in an empty
 * database).
 */
export async function findFileRowsAfter(
  db: Queryable,
  fileIds: [bigint, bigint],
  after: bigint | null,
): Promise<{ watermark: bigint | null; rows: SystemFileRow[] }> {
  const found = await db.query<SystemFileRow & { watermark: bigint | null }>(FILE_ROWS_AFTER_SQL, [fileIds[0], fileIds[1], after ?? -1n]);
  const rows = found.filter((r) => r.consensus_timestamp !== null);
  return { watermark: found[0]?.watermark ?? null, rows };
}

/** The content of file `$1` within `bounds`. */
const fileContentSql = statementShape((bounds: readonly TimestampBound[]) => fileRowsSql(FILE_CONTENT, '$1', bounds));

/** Content of a file as of `asOf`, ignoring versions from `before` on (the retry after an undecodable version). */
export async function findFileContent(db: Queryable, fileId: bigint, asOf: bigint, before: bigint | null): Promise<FileContent> {
  const rows =
    before === null
      ? await db.query<FileContent>(fileContentSql([['<=', '$2']]), [fileId, asOf])
      : await db.query<FileContent>(
          fileContentSql([
            ['<=', '$2'],
            ['<', '$3'],
          ]),
          [fileId, asOf, before],
        );
  return rows[0] ?? { content: null, first_timestamp: null };
}

export interface ContractResultRow {
  consensus_timestamp: bigint;
  amount: bigint | null;
  bloom: Uint8Array | null;
  call_result: Uint8Array | null;
  contract_id: bigint;
  created_contract_ids: (bigint | null)[] | null;
  error_message: string | null;
  failed_initcode: Uint8Array | null;
  function_parameters: Uint8Array;
  /** only when sender_id is NULL, as the reference blanks it otherwise */
  function_result: Uint8Array | null;
  gas_consumed: bigint | null;
  gas_limit: bigint;
  gas_used: bigint | null;
  sender_id: bigint | null;
  transaction_hash: Uint8Array | null;
  transaction_index: number | null;
  transaction_result: number;
  /** the contract entity's evm_address as hex text (from evmAddressesOf) */
  evm_address: string | null;
}

export interface BlockRow {
  index: bigint;
  hash: string;
  gas_used: bigint | null;
}

export interface EthereumTransactionRow {
  access_list: unknown;
  authorization_list: unknown;
  call_data: Uint8Array | null;
  call_data_id: bigint | null;
  chain_id: Uint8Array | null;
  gas_limit: bigint;
  gas_price: Uint8Array | null;
  max_fee_per_gas: Uint8Array | null;
  max_priority_fee_per_gas: Uint8Array | null;
  nonce: bigint;
  recovery_id: number | null;
  signature_r: Uint8Array;
  signature_s: Uint8Array;
  signature_v: Uint8Array | null;
  to_address: Uint8Array | null;
  type: number;
  value: Uint8Array | null;
}

export interface ContractResultDetail {
  /** the execution's `contract_transaction` row */
  involved: InvolvedContracts;
  result: ContractResultRow;
  block: BlockRow | null;
  eth: EthereumTransactionRow | null;
  /** content of the eth transaction's call-data file (num > 1000), null when not loaded */
  callDataFile: FileContent | null;
  logs: ContractLogRow[];
  stateChanges: ContractStateChangeRow[];
}

const RESULT_COLUMNS = [
  'consensus_timestamp',
  'amount',
  'bloom',
  'call_result',
  'contract_id',
  'created_contract_ids',
  'error_message',
  'failed_initcode',
  'function_parameters',
  'gas_consumed',
  'gas_limit',
  'gas_used',
  'sender_id',
  'transaction_hash',
  'transaction_index',
  'transaction_result',
];
const ETH_COLUMNS = [
  'access_list',
  'authorization_list',
  'call_data',
  'call_data_id',
  'chain_id',
  'gas_limit',
  'gas_price',
  'max_fee_per_gas',
  'max_priority_fee_per_gas',
  'nonce',
  'recovery_id',
  'signature_r',
  'signature_s',
  'signature_v',
  'to_address',
  'type',
  'value',
];

/** A user file (num > 1000) holds call data; system files never do. */
const USER_FILE = `(et.call_data_id & ${MAX_NUM}) > 1000`;

/** Byte columns of the logs and state changes come as hex text: an array of bytea needs escaping that the driver parses character by character. */
const hex = (column: string) => `encode(${column}, 'hex')`;

const LOG_COLUMNS = {
  bloom: hex('l.bloom'),
  contract_id: 'l.contract_id',
  data: hex('l.data'),
  index: 'l.index',
  topic0: hex('l.topic0'),
  topic1: hex('l.topic1'),
  topic2: hex('l.topic2'),
  topic3: hex('l.topic3'),
};
const STATE_CHANGE_COLUMNS = {
  contract_id: 's.contract_id',
  slot: hex('s.slot'),
  value_read: hex('s.value_read'),
  value_written: hex('s.value_written'),
};
const LOG_NAMES = Object.keys(LOG_COLUMNS);
const STATE_CHANGE_NAMES = Object.keys(STATE_CHANGE_COLUMNS);

/**
 * Everything about one contract result in one statement: the execution found by `lookup` (its
 * `contract_transaction` row), the result at its timestamp among the involved contracts (any
 * contract when the list is empty); the block (first record file
 * ending at or after it); the wrapped Ethereum transaction of the payer, counted only when a
 * transaction row of the same payer and time exists; the content of its call-data file; the logs
 * and state changes as arrays; and the EVM addresses of the contracts these name. Null when there
 * is no such execution or result. (The system files of the gas price: SystemFileVersions.)
 */
export async function findContractResultDetail(db: Queryable, lookup: ExecutionLookup): Promise<ContractResultDetail | null> {
  const rows = await db.query<Record<string, unknown>>(detailSql(lookup.kind), lookup.values);
  const row = rows[0];
  return row ? detailOf(row) : null;
}

/** The SQL finding the execution, by kind of lookup. */
const INVOLVED_SQL: Record<LookupKind, string> = {
  'transaction id': BY_TRANSACTION_ID_SQL,
  hash: BY_HASH_SQL,
  entity: BY_ENTITY_SQL,
  'evm address': BY_EVM_ADDRESS_SQL,
};

/** The statement of findContractResultDetail for a kind of lookup. */
const detailSql = statementShape((kind: LookupKind): string => {
  const involved = INVOLVED_SQL[kind];
  const among = (column: string) => `(cardinality(inv.contract_ids) = 0 or ${column} = any(inv.contract_ids))`;
  return `with inv as (${involved})
     select inv.contract_ids as inv_contract_ids, inv.payer_account_id as inv_payer_account_id,
       ${RESULT_COLUMNS.map((c) => `cr.${c}`).join(', ')},
       case when cr.sender_id is null then cr.function_result end as function_result,
       rf.index as block_index, rf.hash as block_hash, rf.gas_used as block_gas_used,
       et.consensus_timestamp as eth_timestamp, ${ETH_COLUMNS.map((c) => `et.${c} as eth_${c}`).join(', ')},
       cd.content as call_data_content, cd.first_timestamp as call_data_first_timestamp,
       logs.*, changes.*, addresses.*
     from inv
     join contract_result cr on cr.consensus_timestamp = inv.consensus_timestamp and ${among('cr.contract_id')}
     left join lateral (
       select index, hash, gas_used from record_file where consensus_end >= cr.consensus_timestamp order by consensus_end limit 1
     ) rf on true
     left join lateral (
       select et.* from ethereum_transaction et
       join transaction t on t.consensus_timestamp = et.consensus_timestamp and t.payer_account_id = et.payer_account_id
       where et.consensus_timestamp = cr.consensus_timestamp and et.payer_account_id = inv.payer_account_id
     ) et on true
     left join lateral (${fileRowsSql(FILE_CONTENT, 'et.call_data_id', [])} and ${USER_FILE}) cd on true
     left join lateral (${arraysOf(
       `select ${selectList(LOG_COLUMNS)}
        from contract_log l
        where l.consensus_timestamp = cr.consensus_timestamp and ${among('l.contract_id')}
        order by l.index`,
       LOG_NAMES,
       'log_',
     )}) logs on true
     left join lateral (${arraysOf(
       `select ${selectList(STATE_CHANGE_COLUMNS)}
        from contract_state_change s
        where s.consensus_timestamp = cr.consensus_timestamp
          and (s.contract_id = inv.requested_contract or (${among('s.contract_id')} and s.migration is false))
        order by s.contract_id, s.slot`,
       STATE_CHANGE_NAMES,
       'change_',
     )}) changes on true
     left join lateral (
       select array_agg(a.id) as address_ids, array_agg(${hex('a.evm_address')}) as address_hexes from entity a
       where a.id = any (array[cr.contract_id] || logs.log_contract_id || changes.change_contract_id) and a.evm_address is not null
     ) addresses on true
     limit 1`;
});

function pick<T>(row: Record<string, unknown>, columns: readonly string[], prefix = ''): T {
  return Object.fromEntries(columns.map((c) => [c, row[prefix + c]])) as T;
}

/** Rows from the parallel arrays `<prefix>_<column>` (all NULL when there are none). */
function unzip<T>(row: Record<string, unknown>, columns: readonly string[], prefix: string): T[] {
  const arrays = columns.map((c) => (row[`${prefix}_${c}`] as unknown[] | null) ?? []);
  return arrays[0]!.map((_, i) => Object.fromEntries(columns.map((c, k) => [c, arrays[k]![i] ?? null])) as T);
}

function fileOf(row: Record<string, unknown>, prefix: string): FileContent {
  return { content: row[`${prefix}_content`] as Uint8Array | null, first_timestamp: row[`${prefix}_first_timestamp`] as bigint | null };
}

/**
 * The EVM addresses (hex) of the result's, its logs' and its state changes' contracts, read in one
 * keyed lookup rather than one per log and state change; contracts without one are absent.
 */
function evmAddressesOf(row: Record<string, unknown>): Map<bigint, string> {
  const ids = (row.address_ids as bigint[] | null) ?? [];
  const hexes = row.address_hexes as string[];
  return new Map(ids.map((id, i) => [id, hexes[i]!]));
}

/** Rows of `unzip` with the EVM address of each one's contract. */
function withEvmAddresses<T extends { contract_id: bigint; evm_address: string | null }>(rows: T[], addresses: Map<bigint, string>): T[] {
  for (const r of rows) r.evm_address = addresses.get(r.contract_id) ?? null;
  return rows;
}

function detailOf(row: Record<string, unknown>): ContractResultDetail {
  const hasEth = row.eth_timestamp !== null;
  const addresses = evmAddressesOf(row);
  const result = pick<ContractResultRow>(row, [...RESULT_COLUMNS, 'function_result']);
  result.evm_address = addresses.get(result.contract_id) ?? null;
  return {
    involved: {
      consensus_timestamp: row.consensus_timestamp as bigint,
      contract_ids: row.inv_contract_ids as bigint[],
      payer_account_id: row.inv_payer_account_id as bigint,
    },
    result,
    block:
      row.block_index === null
        ? null
        : { index: row.block_index as bigint, hash: row.block_hash as string, gas_used: row.block_gas_used as bigint | null },
    eth: hasEth ? pick<EthereumTransactionRow>(row, ETH_COLUMNS, 'eth_') : null,
    callDataFile: hasEth && row.call_data_first_timestamp !== null ? fileOf(row, 'call_data') : null,
    logs: withEvmAddresses(unzip<ContractLogRow>(row, LOG_NAMES, 'log'), addresses),
    stateChanges: withEvmAddresses(unzip<ContractStateChangeRow>(row, STATE_CHANGE_NAMES, 'change'), addresses),
  };
}

/** A log; byte columns as hex text (NULL stays null). */
export interface ContractLogRow {
  bloom: string | null;
  contract_id: bigint;
  data: string | null;
  index: number;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  evm_address: string | null;
}

/** A state change; byte columns as hex text (NULL stays null). */
export interface ContractStateChangeRow {
  contract_id: bigint;
  slot: string;
  value_read: string;
  value_written: string | null;
  evm_address: string | null;
}
