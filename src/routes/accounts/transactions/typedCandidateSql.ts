/**
 * Candidates under a `transactiontype` filter. Transfer sources test the type of the transaction
 * with the transfer's timestamp and payer, which made a walk over every transfer of a busy account
 * the only plan. Here the sources split by who pays:
 *
 * - the account's own transactions of the types, one (payer_account_id, type, consensus_timestamp)
 *   scan per type: the payer source, and the transfers the account pays itself (sources 3 and 4
 *   with the account as payer list exactly such transactions);
 * - entity_transaction rows of the types, one (entity_id, type, consensus_timestamp) scan per type;
 * - transfers of the account in transactions others pay, from the partial "non-self" indexes, each
 *   row's transaction type probed by index. These scans start where the first two groups already
 *   fill the page (nothing older can enter it) and stop after `walkLimit` rows; the statement then
 *   reports where it stopped, and the caller completes the rest with a merge (transferMergeSql).
 *
 * Statement texts vary only with the order, the shape of the filter and which of the optional
 * (account, type, timestamp) indexes the database holds; PostgreSQL's generic plans of them keep
 * the scans above (see accountTypeRange). Without such an index (a mirror node database before
 * `lqs indexes`) the source walks the account's (account, timestamp) key in page order and tests
 * each row's type: it stops at the page's `limit` rows as the per-type scans do, reading the
 * account's rows of other types on the way, where a plan through the typed index would sort all of
 * the account's rows.
 */
import { INDEX_EXCLUDED_TRANSFER_ACCOUNT, directionOf, listedAsPayer, rangeConditions, type CandidateParams } from './candidateSql.js';
import type { Order } from '../../../http/params.js';

/**
 * How the types are given: one known type (`$types` is a smallint), several known types (a
 * smallint[]), or types including UNKNOWN (`$types` the named ones and `$knownTypes` every known id).
 */
export type TypeShape = 'one' | 'many' | 'unknown';

/** Which of the optional (account, type, consensus_timestamp) indexes the database holds. */
export interface TypeIndexes {
  /** transaction (payer_account_id, type, consensus_timestamp) */
  payer: boolean;
  /** entity_transaction (entity_id, type, consensus_timestamp) */
  entity: boolean;
}

export interface TypedCandidateParams extends CandidateParams {
  types: string;
  knownTypes: string | null;
  /** rows each transfer walk may read before handing over to the merge; NULL for no limit */
  walkLimit: string;
}

export interface TypedCandidateRow {
  timestamps: bigint[] | null;
  payers: bigint[] | null;
  priorities: number[] | null;
  /** where the transfer walks started: the page's other sources already fill it beyond this bound */
  walk_bound: bigint;
  /** the timestamp a transfer walk stopped at, when it stopped short of the page; null otherwise */
  crypto_stop: bigint | null;
  token_stop: bigint | null;
}

/** Transfer tables whose rows of transactions paid by others are walked. */
export const TRANSFER_SOURCES = {
  crypto: { table: 'crypto_transfer', account: 'entity_id', priority: 3 },
  token: { table: 'token_transfer', account: 'account_id', priority: 4 },
} as const;

export type TransferSource = keyof typeof TRANSFER_SOURCES;

/** The condition on a transaction's `type` column. */
export function typeCondition(column: string, shape: TypeShape, p: { types: string; knownTypes: string | null }): string {
  if (shape === 'one') return `${column} = ${p.types}::smallint`;
  if (shape === 'many') return `${column} = any (${p.types}::smallint[])`;
  return `(${column} = any (${p.types}::smallint[]) or not ${column} = any (${p.knownTypes}::smallint[]))`;
}

/**
 * One (account, type) of a (account, type, consensus_timestamp) index within the bounds. The type
 * is bounded on both sides rather than equated, so that the order by (type, consensus_timestamp)
 * only that index provides stays a requirement of the plan: a generic plan then never scans the
 * account's (account, consensus_timestamp) index filtering by type instead.
 */
function accountTypeRange(alias: string, accountColumn: string, type: string, p: CandidateParams): string {
  return `${alias}.${accountColumn} = ${p.account} and ${alias}.type >= ${type} and ${alias}.type <= ${type}
        and ${rangeConditions(`${alias}.consensus_timestamp`, p)}`;
}

/**
 * The types one of the account's (account, type, timestamp) indexes holds that the filter selects:
 * a loose index scan over the distinct types, for UNKNOWN (which stands for every unnamed id).
 */
function selectedTypesOf(name: string, table: string, accountColumn: string, p: TypedCandidateParams, shape: TypeShape): string {
  const next = (after: string) =>
    `select x.type from ${table} x where x.${accountColumn} = ${p.account}${after} order by x.${accountColumn}, x.type limit 1`;
  return `${name}_all(type) as (
    (${next('')})
    union all
    select (${next(` and x.type > s.type`)}) from ${name}_all s where s.type is not null
  ),
  ${name}(type) as (select type from ${name}_all where type is not null and ${typeCondition('type', shape, p)})`;
}

/**
 * One walk per selected type of (account, type, consensus_timestamp), cut at `limit` rows, in page
 * order; without that index, one walk of (account, consensus_timestamp) testing the type.
 */
function perTypeWalk(
  table: string,
  alias: string,
  accountColumn: string,
  columns: string,
  extra: string,
  p: TypedCandidateParams,
  shape: TypeShape,
  order: Order,
  typeList: string,
  indexed: boolean,
): string {
  if (!indexed) {
    return `select ${columns} from ${table} ${alias}
      where ${alias}.${accountColumn} = ${p.account} and ${typeCondition(`${alias}.type`, shape, p)}
        and ${rangeConditions(`${alias}.consensus_timestamp`, p)}${extra}
      order by ${alias}.consensus_timestamp ${order}
      limit ${p.limit}`;
  }
  const walk = (type: string) => `select ${columns} from ${table} ${alias}
      where ${accountTypeRange(alias, accountColumn, type, p)}${extra}
      order by ${alias}.type ${order}, ${alias}.consensus_timestamp ${order}
      limit ${p.limit}`;
  if (shape === 'one') return walk(`${p.types}::smallint`);
  return `select w.* from ${typeList} cross join lateral (${walk('ty.type')}) w`;
}

/** Rows of a transfer table for the account in transactions others pay, from `lo` on, in page order. */
export function transferWalk(
  source: TransferSource,
  p: Pick<CandidateParams, 'account' | 'ne'>,
  order: Order,
  bounds: { lo: string; hi: string },
  accountIsIndexExcluded: boolean,
): string {
  const { table, account } = TRANSFER_SOURCES[source];
  const indexPredicate = source === 'crypto' && !accountIsIndexExcluded ? ` and w.${account} <> ${INDEX_EXCLUDED_TRANSFER_ACCOUNT}` : '';
  return `select w.consensus_timestamp, w.payer_account_id from ${table} w
      where w.${account} = ${p.account} and w.${account} <> w.payer_account_id${indexPredicate}
        and w.consensus_timestamp >= ${bounds.lo} and w.consensus_timestamp <= ${bounds.hi} and w.consensus_timestamp <> all (${p.ne}::bigint[])
      order by w.${account} ${order}, w.consensus_timestamp ${order}`;
}

/**
 * One row: the page's candidates (arrays in page order) and, for each transfer walk that stopped at
 * `walkLimit` rows before the page was full, the timestamp of its last row.
 */
export function typedCandidatesSql(
  order: Order,
  shape: TypeShape,
  p: TypedCandidateParams,
  accountIsIndexExcluded: boolean,
  indexes: TypeIndexes,
): string {
  const dir = directionOf(order);
  const typeCte =
    shape === 'unknown'
      ? [
          indexes.payer ? selectedTypesOf('payer_types', 'transaction', 'payer_account_id', p, shape) : '',
          indexes.entity ? selectedTypesOf('entity_types', 'entity_transaction', 'entity_id', p, shape) : '',
        ]
          .filter((cte) => cte !== '')
          .map((cte) => `${cte},\n  `)
          .join('')
      : '';
  const typeList = (name: string) => (shape === 'unknown' ? `${name} as ty` : `unnest(${p.types}::smallint[]) as ty(type)`);
  const paysItself = (table: string, account: string) =>
    `exists (select from ${table} x where x.consensus_timestamp = t.consensus_timestamp and x.${account} = ${p.account} and x.payer_account_id = ${p.account})`;
  const payer = perTypeWalk(
    'transaction',
    't',
    'payer_account_id',
    `t.consensus_timestamp, t.payer_account_id, case when ${listedAsPayer('t', p)} then 1 else 3 end as priority`,
    `\n        and (${listedAsPayer('t', p)} or ${paysItself('crypto_transfer', 'entity_id')} or ${paysItself('token_transfer', 'account_id')})`,
    p,
    shape,
    order,
    typeList('payer_types'),
    indexes.payer,
  );
  const entity = perTypeWalk(
    'entity_transaction',
    'et',
    'entity_id',
    'et.consensus_timestamp, et.payer_account_id, 2 as priority',
    '',
    p,
    shape,
    order,
    typeList('entity_types'),
    indexes.entity,
  );
  // the page holds `limit` timestamps of the first two groups: transfers beyond the last add nothing
  const walkBounds =
    dir.order === 'desc' ? { lo: '(select bound from walk_bound)', hi: p.hi } : { lo: p.lo, hi: '(select bound from walk_bound)' };
  const transfers = (source: TransferSource) => `(
    select distinct on (w.consensus_timestamp) w.consensus_timestamp, w.payer_account_id, ${TRANSFER_SOURCES[source].priority} as priority
    from (${transferWalk(source, p, order, walkBounds, accountIsIndexExcluded)}
      limit ${p.walkLimit}) w
    where exists (select from transaction t
      where t.consensus_timestamp = w.consensus_timestamp and t.payer_account_id = w.payer_account_id and ${typeCondition('t.type', shape, p)})
    order by w.consensus_timestamp ${order}
    limit ${p.limit})`;
  const stop = (
    source: TransferSource,
    name: string,
  ) => `case when ${p.walkLimit}::int is not null and (select count(*) from ${name}) < ${p.limit} then
      (select w.consensus_timestamp from (${transferWalk(source, p, order, walkBounds, accountIsIndexExcluded)}) w offset ${p.walkLimit}::int - 1 limit 1) end`;
  return `with recursive ${typeCte}
  own as (
    select distinct on (consensus_timestamp) consensus_timestamp, payer_account_id, priority
    from ((${payer}) union all (${entity})) s
    order by consensus_timestamp ${order}, priority
    limit ${p.limit}
  ),
  walk_bound as (select case when count(*) = ${p.limit} then ${dir.last}(consensus_timestamp) else ${dir.order === 'desc' ? p.lo : p.hi} end as bound from own),
  crypto as ${transfers('crypto')},
  token as ${transfers('token')},
  candidate as (
    select distinct on (consensus_timestamp) consensus_timestamp, payer_account_id, priority
    from (select * from own union all select * from crypto union all select * from token) s
    order by consensus_timestamp ${order}, priority
    limit ${p.limit}
  )
  select array_agg(consensus_timestamp order by consensus_timestamp ${order}) as timestamps,
    array_agg(payer_account_id order by consensus_timestamp ${order}) as payers,
    array_agg(priority order by consensus_timestamp ${order}) as priorities,
    (select bound from walk_bound) as walk_bound,
    ${stop('crypto', 'crypto')} as crypto_stop,
    ${stop('token', 'token')} as token_stop
  from candidate`;
}

/**
 * The transfers of the account in transactions of one type that others pay, within [lo, hi]: a
 * merge of the account's transfer timestamps with the type's transaction timestamps, both read in
 * order from covering indexes, for the part of the range a bounded walk left open. The caller runs
 * it with nested loops and hash joins disabled, so that the merge is the plan whatever the estimates.
 */
export function transferMergeSql(
  source: TransferSource,
  order: Order,
  p: Omit<CandidateParams, 'precedingTypes'> & { types: string },
): string {
  return `select distinct on (w.consensus_timestamp) w.consensus_timestamp, w.payer_account_id
    from (${transferWalk(source, p, order, { lo: p.lo, hi: p.hi }, false)}) w
    join transaction t on t.consensus_timestamp = w.consensus_timestamp and t.payer_account_id = w.payer_account_id
    where t.type = ${p.types}::smallint and t.consensus_timestamp >= ${p.lo} and t.consensus_timestamp <= ${p.hi}
    order by w.consensus_timestamp ${order}
    limit ${p.limit}`;
}

type TransferJoinParams = Omit<CandidateParams, 'precedingTypes'> & { types: string };

/**
 * The same transfers by probing: the account's transfers walked in page order, each looked up in
 * the type's (type, consensus_timestamp) index. A lateral LIMIT 1 keeps it a probe per row, where
 * an EXISTS could become a semi-join reading the whole type.
 */
export function transferProbeByAccountSql(source: TransferSource, order: Order, p: TransferJoinParams): string {
  return `select distinct on (w.consensus_timestamp) w.consensus_timestamp, w.payer_account_id
    from (${transferWalk(source, p, order, { lo: p.lo, hi: p.hi }, false)}) w
    cross join lateral (select from transaction t
      where t.type = ${p.types}::smallint and t.consensus_timestamp = w.consensus_timestamp and t.payer_account_id = w.payer_account_id
      limit 1) t
    order by w.consensus_timestamp ${order}
    limit ${p.limit}`;
}

/** The same transfers by probing from the other side: the type's transactions walked in page order, each looked up among the account's transfers. */
export function transferProbeByTypeSql(source: TransferSource, order: Order, p: TransferJoinParams): string {
  const { table, account } = TRANSFER_SOURCES[source];
  const indexPredicate = source === 'crypto' ? ` and w.${account} <> ${INDEX_EXCLUDED_TRANSFER_ACCOUNT}` : '';
  return `select t.consensus_timestamp, t.payer_account_id from transaction t
    cross join lateral (select from ${table} w
      where w.${account} = ${p.account} and w.${account} <> w.payer_account_id${indexPredicate}
        and w.consensus_timestamp = t.consensus_timestamp and w.payer_account_id = t.payer_account_id
      limit 1) w
    where t.type >= ${p.types}::smallint and t.type <= ${p.types}::smallint and ${rangeConditions('t.consensus_timestamp', p)}
    order by t.type ${order}, t.consensus_timestamp ${order}
    limit ${p.limit}`;
}

/** What a choice between merge and probes reads: the type's transactions in [lo, hi], as the planner estimates them (its statistics hold each type's frequency). */
export function typeRowsSql(p: Pick<TransferJoinParams, 'types' | 'lo' | 'hi'>): string {
  return `explain (format json) select from transaction t
    where t.type = ${p.types}::smallint and t.consensus_timestamp >= ${p.lo}::bigint and t.consensus_timestamp <= ${p.hi}::bigint`;
}

/**
 * The account's transfers in transactions others pay within [lo, hi], counted up to `cap` from the
 * partial index (the planner cannot tell how many of an account's transfers others pay).
 */
export function transferCountSql(source: TransferSource, p: Pick<TransferJoinParams, 'account' | 'lo' | 'hi' | 'ne'>, cap: string): string {
  return `select count(*)::int as n from (${transferWalk(source, p, 'asc', { lo: p.lo, hi: p.hi }, false)} limit ${cap}) w`;
}
