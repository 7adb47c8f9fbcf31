/**
 * A cost-based choice between a merge join and index probes for the account's transfers in
 * transactions of one type, and the statement it chose. It asks PostgreSQL's planner (EXPLAIN) how
 * many transactions of the type the range holds and counts the account's transfers up to what the
 * choice needs, then runs the way that reads least.
 */
import type { Db, Queryable } from '../../../db/db.js';
import { SqlParams, statementShape } from '../../../db/statements.js';
import type { PageQuery } from './queries.js';
import {
  transferCountSql,
  transferMergeSql,
  transferProbeByAccountSql,
  transferProbeByTypeSql,
  typeRowsSql,
  type TransferSource,
} from './typedCandidateSql.js';

const transferCountText = statementShape(transferCountSql);
const transferMergeText = statementShape(transferMergeSql);
const transferProbeByAccountText = statementShape(transferProbeByAccountSql);
const transferProbeByTypeText = statementShape(transferProbeByTypeSql);

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
  const [{ n: transfers }] = (await db.query<{ n: number }>(transferCountText(source, p, capParam), params.values)) as [{ n: number }];
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
    const probe = way === 'probe by account' ? transferProbeByAccountText : transferProbeByTypeText;
    return db.query(probe(source, q.order, p), params.values);
  }
  const sql = transferMergeText(source, q.order, p);
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
