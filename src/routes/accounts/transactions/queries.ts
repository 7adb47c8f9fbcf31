/**
 * The statements of an account's transaction page. Without a type filter one statement finds the
 * candidates and returns the page with its transfers. With one, a first statement finds the
 * candidates (typedCandidateSql), a merge or probe chosen by cost completes a transfer walk that
 * stopped early (transferJoinPlanner), and a second statement returns the page of the chosen
 * candidates.
 */
import type { Config } from '../../../config.js';
import type { Queryable } from '../../../db/db.js';
import { SqlParams, statementShape } from '../../../db/statements.js';
import type { Order } from '../../../http/params.js';
import type { InclusiveBounds } from '../timestampRange.js';
import { INDEX_EXCLUDED_TRANSFER_ACCOUNT, untypedCandidatesSql, type CandidateParams } from './candidateSql.js';
import { pageSelect, type PageRow } from './pageSql.js';
import { typedCandidatesSql, type TypeIndexes, type TypeShape, type TypedCandidateRow } from './typedCandidateSql.js';

/** Which transaction types to list: these ids, plus (`unknown`) every id outside `knownIds`. */
export interface TypeFilter {
  ids: number[];
  unknown: boolean;
  knownIds: readonly number[];
}

export interface PageQuery {
  accountId: bigint;
  /** of the page's consensus timestamps */
  bounds: InclusiveBounds;
  /** synthetic children without a parent are listed only for these types (account create/update) */
  precedingTypes: readonly number[];
  /** the staking reward account 0.0.800: its hbar transfers mark reward payouts */
  stakingRewardAccount: bigint;
  order: Order;
  limit: number;
  /** how transfers of one type are found (the `query.transfers` settings) */
  transfers: Config['query']['transfers'];
  /** which optional (account, type, timestamp) indexes the database holds */
  typeIndexes: TypeIndexes;
}

function candidateParams(params: SqlParams, q: PageQuery): CandidateParams {
  return {
    account: params.add(q.accountId),
    limit: params.add(q.limit),
    lo: params.add(q.bounds.lo),
    hi: params.add(q.bounds.hi),
    ne: params.add(q.bounds.ne),
    precedingTypes: params.add(q.precedingTypes),
  };
}

const isIndexExcluded = (accountId: bigint) => accountId === INDEX_EXCLUDED_TRANSFER_ACCOUNT;

const untypedPageSql = statementShape(
  (order: Order, p: CandidateParams, stakingRewardAccount: string, accountIsIndexExcluded: boolean) =>
    `with ${untypedCandidatesSql(order, p, accountIsIndexExcluded)}\n  ${pageSelect(order, stakingRewardAccount)}`,
);

/** The page without a type filter: candidates and transactions with their transfers in one statement. */
export async function findUntypedPage(db: Queryable, q: PageQuery): Promise<PageRow[]> {
  const params = new SqlParams();
  const p = candidateParams(params, q);
  const staking = params.add(q.stakingRewardAccount);
  const excluded = isIndexExcluded(q.accountId);
  return db.query<PageRow>(untypedPageSql(q.order, p, staking, excluded), params.values);
}

const typedCandidatesText = statementShape(typedCandidatesSql);

/** The candidates under a type filter; `walkLimit` null lets the transfer walks run to the end. */
export async function findTypedCandidates(
  db: Queryable,
  q: PageQuery,
  shape: TypeShape,
  types: TypeFilter,
  walkLimit: number | null,
): Promise<TypedCandidateRow> {
  const params = new SqlParams();
  const p = candidateParams(params, q);
  const typed = {
    ...p,
    types: params.add(shape === 'one' ? types.ids[0] : types.ids),
    knownTypes: shape === 'unknown' ? params.add(types.knownIds) : null,
    walkLimit: params.add(walkLimit),
  };
  const excluded = isIndexExcluded(q.accountId);
  const rows = await db.query<TypedCandidateRow>(typedCandidatesText(q.order, shape, typed, excluded, q.typeIndexes), params.values);
  return rows[0]!;
}

/** The transaction types present in the table outside `knownIds` (what UNKNOWN selects): a loose scan of the type index. */
export async function findUnknownStoredTypes(db: Queryable, knownIds: readonly number[]): Promise<number[]> {
  const rows = await db.query<{ type: number }>(
    `with recursive stored(type) as (
       (select type from transaction order by type limit 1)
       union all
       select (select t.type from transaction t where t.type > s.type order by t.type limit 1) from stored s where s.type is not null
     )
     select type from stored where type is not null and not type = any ($1::smallint[])`,
    [knownIds],
  );
  return rows.map((r) => r.type);
}

const pageOfCandidatesSql = statementShape(
  (order: Order) =>
    `with candidate as (select * from unnest($1::bigint[], $2::bigint[]) as c(consensus_timestamp, payer_account_id))\n  ${pageSelect(order, '$3')}`,
);

/** The page of the given candidates (timestamps with their payers). */
export async function findPageOfCandidates(
  db: Queryable,
  order: Order,
  timestamps: bigint[],
  payers: bigint[],
  stakingRewardAccount: bigint,
): Promise<PageRow[]> {
  return db.query<PageRow>(pageOfCandidatesSql(order), [timestamps, payers, stakingRewardAccount]);
}

/** The first transaction's timestamp, 0 when there is none (bindTimestampRange's missing lower bound). */
export async function findFirstTransactionTimestamp(db: Queryable): Promise<bigint> {
  const rows = await db.query<{ consensus_timestamp: bigint }>(
    'select consensus_timestamp from transaction order by consensus_timestamp limit 1',
  );
  return rows[0]?.consensus_timestamp ?? 0n;
}
