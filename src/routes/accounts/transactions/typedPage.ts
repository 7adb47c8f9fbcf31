/**
 * The page under a type filter: the candidate statement, a merge for a transfer walk that stopped
 * before the page was settled, then the page of the candidates chosen.
 */
import type { Db } from '../../../db/db.js';
import type { Order } from '../../../http/params.js';
import type { PageRow } from './pageSql.js';
import { INDEX_EXCLUDED_TRANSFER_ACCOUNT } from './candidateSql.js';
import { findPageOfCandidates, findTypedCandidates, findUnknownStoredTypes, type PageQuery, type TypeFilter } from './queries.js';
import { findTransfersOfType } from './transferJoinPlanner.js';
import { TRANSFER_SOURCES, type TransferSource, type TypeShape, type TypedCandidateRow } from './typedCandidateSql.js';

interface Candidate {
  timestamp: bigint;
  payer: bigint;
  priority: number;
}

function shapeOf(types: TypeFilter): TypeShape | null {
  if (types.unknown) return 'unknown';
  if (types.ids.length === 0) return null;
  return types.ids.length === 1 ? 'one' : 'many';
}

const inPageOrder = (order: Order) => (a: Candidate, b: Candidate) =>
  a.timestamp === b.timestamp ? a.priority - b.priority : a.timestamp < b.timestamp === (order === 'asc') ? -1 : 1;

/** One candidate per timestamp (the lowest priority's), the first `limit` in page order. */
function firstDistinct(candidates: Candidate[], order: Order, limit: number): Candidate[] {
  const out: Candidate[] = [];
  for (const c of [...candidates].sort(inPageOrder(order))) {
    if (out.length > 0 && out[out.length - 1]!.timestamp === c.timestamp) continue;
    out.push(c);
    if (out.length === limit) break;
  }
  return out;
}

function candidatesOf(row: TypedCandidateRow): Candidate[] {
  const { timestamps, payers, priorities } = row;
  return (timestamps ?? []).map((timestamp, i) => ({ timestamp, payer: payers![i]!, priority: priorities![i]! }));
}

/** Whether the candidates known beyond a walk's stop (all of them are known there) already fill the page. */
function settledBeyond(candidates: Candidate[], stop: bigint, order: Order, limit: number): boolean {
  const beyond = candidates.filter((c) => (order === 'desc' ? c.timestamp > stop : c.timestamp < stop));
  return beyond.length >= limit;
}

/** The type ids a filter selects, one merge each: the named ones and, for UNKNOWN, those stored outside the known list. */
async function typesToMerge(db: Db, types: TypeFilter): Promise<number[]> {
  if (!types.unknown) return types.ids;
  return [...new Set([...types.ids, ...(await findUnknownStoredTypes(db, types.knownIds))])];
}

export async function findTypedPage(db: Db, q: PageQuery, types: TypeFilter): Promise<PageRow[]> {
  const shape = shapeOf(types);
  if (shape === null) return [];
  // 0.0.98 is outside the partial transfer indexes a merge reads: its walks run to the end
  const walkLimit = q.accountId !== INDEX_EXCLUDED_TRANSFER_ACCOUNT ? q.transfers.walkLimit : null;
  const row = await findTypedCandidates(db, q, shape, types, walkLimit);
  let candidates = candidatesOf(row);
  const stops: [TransferSource, bigint | null][] = [
    ['crypto', row.crypto_stop],
    ['token', row.token_stop],
  ];
  let mergeTypes: number[] | undefined;
  for (const [source, stop] of stops) {
    if (stop === null || settledBeyond(candidates, stop, q.order, q.limit)) continue;
    const [lo, hi] = q.order === 'desc' ? [row.walk_bound, stop] : [stop, row.walk_bound];
    mergeTypes ??= await typesToMerge(db, types);
    const merged = await Promise.all(mergeTypes.map((type) => findTransfersOfType(db, source, q, type, lo, hi)));
    const priority = TRANSFER_SOURCES[source].priority;
    const found = merged.flat().map((m) => ({ timestamp: m.consensus_timestamp, payer: m.payer_account_id, priority }));
    candidates = firstDistinct([...candidates, ...found], q.order, q.limit);
  }
  if (candidates.length === 0) return [];
  return findPageOfCandidates(
    db,
    q.order,
    candidates.map((c) => c.timestamp),
    candidates.map((c) => c.payer),
    q.stakingRewardAccount,
  );
}
