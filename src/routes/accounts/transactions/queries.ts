/**
 * The statements of an account's transaction page. Without a type filter one statement finds the
 * candidates and returns the page with its transfers. With one, a first statement finds the
 * candidates (typedCandidateSql), a merge completes a transfer walk that stopped early, and a second
 * statement returns the page of the chosen candidates.
 */
import type { Config } from '../../../config.js';
import type { Db, Queryable } from '../../../db/db.js';
import { SqlParams, statementText } from '../../../db/statements.js';
import type { Order } from '../../../http/params.js';
import type { InclusiveBounds } from '../timestampRange.js';
import { INDEX_EXCLUDED_TRANSFER_ACCOUNT, untypedCandidatesSql, type CandidateParams } from './candidateSql.js';
import { pageSelect, type PageRow } from './pageSql.js';
import {
  transferCountSql,
  transferMergeSql,
  transferProbeByAccountSql,
  transferProbeByTypeSql,
  typeRowsSql,
  typedCandidatesSql,
  type TransferSource,
  type TypeShape,
  type TypedCandidateRow,
} from './typedCandidateSql.js';

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

/** The page without a type filter: candidates and transactions with their transfers in one statement. */
export async function findUntypedPage(db: Queryable, q: PageQuery): Promise<PageRow[]> {
  const params = new SqlParams();
  const p = candidateParams(params, q);
  const staking = params.add(q.stakingRewardAccount);
  const excluded = isIndexExcluded(q.accountId);
  const text = statementText(
    `account page ${q.order} ${excluded}`,
    () => `with ${untypedCandidatesSql(q.order, p, excluded)}\n  ${pageSelect(q.order, staking)}`,
  );
  return db.query<PageRow>(text, params.values);
}

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
  const text = statementText(`typed candidates ${q.order} ${shape} ${excluded}`, () => typedCandidatesSql(q.order, shape, typed, excluded));
  const rows = await db.query<TypedCandidateRow>(text, params.values);
  return rows[0]!;
}

/** How the account's transfers in transactions of one type are found (see findTransfersOfType). */
export type TransferJoin = 'merge' | 'probe by account' | 'probe by type';

/**
 * The way that reads least, from the type's transactions in the range (the planner's estimate:
 * its statistics hold each type's frequency) and the account's transfers in it (counted from the
 * partial index up to what the choice needs). A merge reads both; a probe walks one side and
 * descends the other's index once per row. Every way stops once the page is full; the costs are
 * those of a page that stays short, the case a walk that stopped early leaves.
 */
async function cheapestTransferJoin(
  db: Queryable,
  source: TransferSource,
  accountId: bigint,
  type: number,
  lo: bigint,
  hi: bigint,
  ne: bigint[],
  tuning: PageQuery['transfers'],
): Promise<TransferJoin> {
  const { probeCost, maxCounted, join } = tuning;
  if (join !== 'auto') return join;
  const typeRows = await estimatedTypeRows(db, type, lo, hi);
  const probeTypeSide = typeRows * probeCost <= maxCounted;
  const cap = probeTypeSide ? typeRows * probeCost + 1 : Math.ceil(typeRows / probeCost) + 1;
  const params = new SqlParams();
  const p = { account: params.add(accountId), lo: params.add(lo), hi: params.add(hi), ne: params.add(ne) };
  const capParam = params.add(cap);
  const text = statementText(`transfer count ${source}`, () => transferCountSql(source, p, capParam));
  const [{ n: transfers }] = (await db.query<{ n: number }>(text, params.values)) as [{ n: number }];
  if (transfers * probeCost <= typeRows) return 'probe by account';
  if (probeTypeSide && transfers >= cap) return 'probe by type';
  return 'merge';
}

const TYPE_ROWS = typeRowsSql({ types: '$1', lo: '$2', hi: '$3' });

/** The planner's estimate of the type's transactions in [lo, hi]. */
async function estimatedTypeRows(db: Queryable, type: number, lo: bigint, hi: bigint): Promise<number> {
  const rows = await db.query<{ 'QUERY PLAN': unknown }>(TYPE_ROWS, [type, lo, hi]);
  const raw = rows[0]!['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
  return plan[0]!.Plan['Plan Rows'];
}

/**
 * The account's transfers of one type in transactions others pay, within [lo, hi], by the
 * cheapest way: a merge join (see transferMergeSql; its planner settings apply to this
 * transaction only) or a probe from either side.
 */
export async function findTransfersOfType(
  db: Db,
  source: TransferSource,
  q: PageQuery,
  type: number,
  lo: bigint,
  hi: bigint,
): Promise<{ consensus_timestamp: bigint; payer_account_id: bigint }[]> {
  const way = await cheapestTransferJoin(db, source, q.accountId, type, lo, hi, q.bounds.ne, q.transfers);
  const params = new SqlParams();
  const p = {
    account: params.add(q.accountId),
    limit: params.add(q.limit),
    lo: params.add(lo),
    hi: params.add(hi),
    ne: params.add(q.bounds.ne),
    types: params.add(type),
  };
  if (way === 'probe by account' || way === 'probe by type') {
    const build = way === 'probe by account' ? transferProbeByAccountSql : transferProbeByTypeSql;
    return db.query(
      statementText(`transfer ${way} ${source} ${q.order}`, () => build(source, q.order, p)),
      params.values,
    );
  }
  const sql = statementText(`transfer merge ${source} ${q.order}`, () => transferMergeSql(source, q.order, p));
  return db.transaction(
    async (tx) => {
      await tx.query(
        `select set_config('enable_nestloop', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('jit', 'off', true)`,
      );
      return tx.query(sql, params.values);
    },
    { readOnly: true },
  );
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

/** The page of the given candidates (timestamps with their payers). */
export async function findPageOfCandidates(
  db: Queryable,
  order: Order,
  timestamps: bigint[],
  payers: bigint[],
  stakingRewardAccount: bigint,
): Promise<PageRow[]> {
  const text = statementText(
    `page of candidates ${order}`,
    () =>
      `with candidate as (select * from unnest($1::bigint[], $2::bigint[]) as c(consensus_timestamp, payer_account_id))\n  ${pageSelect(order, '$3')}`,
  );
  return db.query<PageRow>(text, [timestamps, payers, stakingRewardAccount]);
}

/** The first transaction's timestamp, 0 when there is none (bindTimestampRange's missing lower bound). */
export async function findFirstTransactionTimestamp(db: Queryable): Promise<bigint> {
  const rows = await db.query<{ consensus_timestamp: bigint }>(
    'select consensus_timestamp from transaction order by consensus_timestamp limit 1',
  );
  return rows[0]?.consensus_timestamp ?? 0n;
}
