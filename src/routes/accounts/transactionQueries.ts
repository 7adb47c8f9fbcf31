/**
 * SQL of an account's transaction page. The page is the union of four sources (the account as
 * payer, entity_transaction, crypto transfers, token transfers), each an index range scan on
 * (account, consensus_timestamp) stopped after `limit` distinct timestamps, deduplicated, ordered
 * and cut to `limit`; the page's transfers are then fetched by timestamp, one query per kind.
 */
import type { Queryable } from '../../db/db.js';
import type { Order } from '../../http/params.js';
import { SqlParams } from './sqlParams.js';

/** The timestamp predicate of the page, with values the database can hold. */
export interface TimestampPredicate {
  lower: bigint | null;
  upper: bigint | null;
  eq: bigint | null;
  ne: bigint[];
}

/** Which transaction types to list: these ids, plus (`unknown`) every id outside `knownIds`. */
export interface TypeFilter {
  ids: number[];
  unknown: boolean;
  knownIds: readonly number[];
}

export interface TransactionPageQuery {
  accountId: bigint;
  timestamps: TimestampPredicate;
  types: TypeFilter | null;
  /** synthetic children without a parent are listed only for these types (account create/update) */
  precedingTypes: readonly number[];
  order: Order;
  limit: number;
}

export interface TransactionRow {
  batch_key: Uint8Array | null;
  charged_tx_fee: bigint | null;
  consensus_timestamp: bigint;
  entity_id: bigint | null;
  high_volume: boolean | null;
  high_volume_pricing_multiplier: bigint | null;
  max_custom_fees: Uint8Array[] | null;
  max_fee: bigint | null;
  memo: Uint8Array | null;
  nft_transfer: unknown;
  node_account_id: bigint | null;
  nonce: number;
  parent_consensus_timestamp: bigint | null;
  payer_account_id: bigint;
  result: number;
  scheduled: boolean;
  transaction_bytes: Uint8Array | null;
  transaction_hash: Uint8Array | null;
  type: number;
  valid_duration_seconds: bigint | null;
  valid_start_ns: bigint;
}

/** The account the schema's crypto_transfer (entity_id, consensus_timestamp) index leaves out (`where entity_id <> 98`). */
const INDEX_EXCLUDED_TRANSFER_ACCOUNT = 98n;

const TRANSACTION_COLUMNS = `t.batch_key, t.charged_tx_fee, t.consensus_timestamp, t.entity_id, t.high_volume,
  t.high_volume_pricing_multiplier, t.max_custom_fees, t.max_fee, t.memo, t.nft_transfer, t.node_account_id, t.nonce,
  t.parent_consensus_timestamp, t.payer_account_id, t.result, t.scheduled, t.transaction_bytes, t.transaction_hash,
  t.type, t.valid_duration_seconds, t.valid_start_ns`;

function timestampConditions(column: string, p: TimestampPredicate, params: SqlParams): string[] {
  const conditions: string[] = [];
  if (p.lower !== null) conditions.push(`${column} >= ${params.add(p.lower)}`);
  if (p.upper !== null) conditions.push(`${column} <= ${params.add(p.upper)}`);
  if (p.ne.length > 0) conditions.push(`${column} <> all (${params.add(p.ne)}::bigint[])`);
  if (p.eq !== null) conditions.push(`${column} = ${params.add(p.eq)}`);
  return conditions;
}

function typeCondition(column: string, types: TypeFilter, params: SqlParams): string {
  const alternatives: string[] = [];
  if (types.ids.length > 0) alternatives.push(`${column} = any (${params.add(types.ids)}::smallint[])`);
  if (types.unknown) alternatives.push(`not ${column} = any (${params.add(types.knownIds)}::smallint[])`);
  return alternatives.length === 0 ? 'false' : `(${alternatives.join(' or ')})`;
}

/**
 * The type of a transfer's transaction, looked up by primary key for each transfer row walked (a
 * lateral subquery with a limit is never turned into a hash join over all transactions of the type).
 */
function typeLookup(timestamp: string, payer: string): string {
  return `cross join lateral (select type from transaction where consensus_timestamp = ${timestamp} and payer_account_id = ${payer} limit 1) tx`;
}

/** A table the account's transactions are found in, scanned on (account column, consensus_timestamp). */
interface Source {
  table: string;
  alias: string;
  accountColumn: string;
  /** which source's payer wins when several list the same timestamp (lowest first) */
  priority: number;
  /** transfer tables hold several rows per transaction: keep one per timestamp before the limit */
  distinct: boolean;
  /** the column holding the type; absent for transfers, whose transaction is looked up for it */
  typeColumn?: string;
  extra?: string[];
}

/** `(select [distinct on (ts)] ts, payer, priority from … where … order by ts limit n)` for one source. */
function sourceQuery(q: TransactionPageQuery, params: SqlParams, placeholders: { account: string; limit: string }, source: Source): string {
  const { alias } = source;
  const ts = `${alias}.consensus_timestamp`;
  const conditions = [`${alias}.${source.accountColumn} = ${placeholders.account}`, ...(source.extra ?? []), ...timestampConditions(ts, q.timestamps, params)];
  if (q.types !== null) conditions.push(typeCondition(source.typeColumn ?? 'tx.type', q.types, params));
  const typeJoin = q.types !== null && source.typeColumn === undefined ? typeLookup(ts, `${alias}.payer_account_id`) : '';
  return `(select ${source.distinct ? `distinct on (${ts}) ` : ''}${ts} as consensus_timestamp, ${alias}.payer_account_id, ${source.priority} as priority
    from ${source.table} ${alias} ${typeJoin}
    where ${conditions.join(' and ')}
    order by ${ts} ${q.order}
    limit ${placeholders.limit})`;
}

/** The page's transactions (rows whose payer is among the candidates' payers), in page order. */
export async function findTransactionPage(db: Queryable, q: TransactionPageQuery): Promise<TransactionRow[]> {
  const params = new SqlParams();
  const placeholders = { account: params.add(q.accountId), limit: params.add(q.limit) };
  const sources: Source[] = [
    {
      table: 'transaction',
      alias: 't',
      accountColumn: 'payer_account_id',
      priority: 1,
      distinct: false,
      typeColumn: 't.type',
      extra: [`(t.nonce = 0 or t.parent_consensus_timestamp is not null or t.type = any (${params.add(q.precedingTypes)}::smallint[]))`],
    },
    { table: 'entity_transaction', alias: 'et', accountColumn: 'entity_id', priority: 2, distinct: false, typeColumn: 'et.type' },
    {
      table: 'crypto_transfer',
      alias: 'ct',
      accountColumn: 'entity_id',
      priority: 3,
      distinct: true,
      // implies the predicate of the partial (entity_id, consensus_timestamp) index, so the planner can use it
      extra: q.accountId === INDEX_EXCLUDED_TRANSFER_ACCOUNT ? [] : [`ct.entity_id <> ${INDEX_EXCLUDED_TRANSFER_ACCOUNT}`],
    },
    { table: 'token_transfer', alias: 'tt', accountColumn: 'account_id', priority: 4, distinct: true },
  ];
  const { limit } = placeholders;
  const candidates = sources.map((source) => sourceQuery(q, params, placeholders, source));
  return db.query<TransactionRow>(
    `with candidate as (
       select distinct on (consensus_timestamp) consensus_timestamp, payer_account_id
       from (${candidates.join('\n union all\n')}) as source
       order by consensus_timestamp ${q.order}, priority
       limit ${limit}
     )
     select ${TRANSACTION_COLUMNS}
     from transaction t
     where t.consensus_timestamp in (select consensus_timestamp from candidate)
       and t.payer_account_id in (select payer_account_id from candidate)
     order by t.consensus_timestamp ${q.order}`,
    params.values,
  );
}

export interface CryptoTransferRow {
  consensus_timestamp: bigint;
  payer_account_id: bigint;
  entity_id: bigint;
  amount: bigint;
  is_approval: boolean | null;
}

export interface TokenTransferRow {
  consensus_timestamp: bigint;
  payer_account_id: bigint;
  token_id: bigint;
  account_id: bigint;
  amount: bigint;
  is_approval: boolean | null;
}

export interface StakingRewardTransferRow {
  consensus_timestamp: bigint;
  account_id: bigint;
  amount: bigint;
}

/** Hbar transfers of the given transactions (timestamp and payer), by account then amount. */
export async function findCryptoTransfers(db: Queryable, timestamps: bigint[], payers: bigint[]): Promise<CryptoTransferRow[]> {
  return db.query<CryptoTransferRow>(
    `select consensus_timestamp, payer_account_id, entity_id, amount, is_approval from crypto_transfer
     where consensus_timestamp = any ($1::bigint[]) and payer_account_id = any ($2::bigint[])
     order by consensus_timestamp, entity_id, amount`,
    [timestamps, payers],
  );
}

/** Token transfers of the given transactions, by token then account. */
export async function findTokenTransfers(db: Queryable, timestamps: bigint[], payers: bigint[]): Promise<TokenTransferRow[]> {
  return db.query<TokenTransferRow>(
    `select consensus_timestamp, payer_account_id, token_id, account_id, amount, is_approval from token_transfer
     where consensus_timestamp = any ($1::bigint[]) and payer_account_id = any ($2::bigint[])
     order by consensus_timestamp, token_id, account_id`,
    [timestamps, payers],
  );
}

/** Staking reward payouts at the given timestamps, in storage order as the reference lists them. */
export async function findStakingRewardTransfers(db: Queryable, timestamps: bigint[]): Promise<StakingRewardTransferRow[]> {
  return db.query<StakingRewardTransferRow>(
    `select consensus_timestamp, account_id, amount from staking_reward_transfer
     where consensus_timestamp = any ($1::bigint[])
     order by consensus_timestamp, ctid`,
    [timestamps],
  );
}

/** The first transaction's timestamp, 0 when there is none (bindTimestampRange's missing lower bound). */
export async function findFirstTransactionTimestamp(db: Queryable): Promise<bigint> {
  const rows = await db.query<{ consensus_timestamp: bigint }>('select consensus_timestamp from transaction order by consensus_timestamp limit 1');
  return rows[0]?.consensus_timestamp ?? 0n;
}
