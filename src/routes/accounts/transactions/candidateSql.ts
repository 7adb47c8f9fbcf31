/**
 * SQL of the page's candidates: (consensus_timestamp, payer_account_id, priority) rows from four
 * sources, the account as payer (1), entity_transaction (2), its crypto transfers (3) and its token
 * transfers (4). Without a type filter each source is an index range scan on (account, timestamp)
 * cut at `limit` distinct timestamps. With one, see typedCandidatesSql.
 *
 * Every statement text depends only on the order, the shape of the type filter and whether the
 * account is 0.0.98 (which the crypto_transfer (entity_id, consensus_timestamp) indexes leave out),
 * so that PostgreSQL prepares each once per connection; bounds travel as parameters.
 */
import type { Order } from '../../../http/params.js';

/** The account the crypto_transfer (entity_id, consensus_timestamp) indexes leave out (`where entity_id <> 98`). */
export const INDEX_EXCLUDED_TRANSFER_ACCOUNT = 98n;

/** Placeholders shared by the candidate statements. */
export interface CandidateParams {
  account: string;
  limit: string;
  /** inclusive bounds and excluded values of consensus_timestamp */
  lo: string;
  hi: string;
  ne: string;
  /** types whose synthetic children without a parent are still listed (account create/update) */
  precedingTypes: string;
}

export interface Direction {
  order: Order;
  /** the bound a scan in this order stops at, and the comparison past it */
  last: 'min' | 'max';
  beyond: '<' | '>';
}

export function directionOf(order: Order): Direction {
  return order === 'desc' ? { order, last: 'min', beyond: '<' } : { order, last: 'max', beyond: '>' };
}

export function rangeConditions(column: string, p: Pick<CandidateParams, 'lo' | 'hi' | 'ne'>, lo = p.lo): string {
  return `${column} >= ${lo} and ${column} <= ${p.hi} and ${column} <> all (${p.ne}::bigint[])`;
}

/** Transactions the account pays, except synthetic children without a parent (unless of a preceding type). */
export const listedAsPayer = (t: string, p: CandidateParams) =>
  `(${t}.nonce = 0 or ${t}.parent_consensus_timestamp is not null or ${t}.type = any (${p.precedingTypes}::smallint[]))`;

/** `candidate`: the first `limit` distinct timestamps over the four sources, the lowest priority's payer at each. */
export function untypedCandidatesSql(order: Order, p: CandidateParams, accountIsIndexExcluded: boolean): string {
  const source = (body: string) => `(${body}\n      order by consensus_timestamp ${order} limit ${p.limit})`;
  const sources = [
    source(`select t.consensus_timestamp, t.payer_account_id, 1 as priority from transaction t
      where t.payer_account_id = ${p.account} and ${rangeConditions('t.consensus_timestamp', p)} and ${listedAsPayer('t', p)}`),
    source(`select et.consensus_timestamp, et.payer_account_id, 2 from entity_transaction et
      where et.entity_id = ${p.account} and ${rangeConditions('et.consensus_timestamp', p)}`),
    source(`select distinct on (ct.consensus_timestamp) ct.consensus_timestamp, ct.payer_account_id, 3 from crypto_transfer ct
      where ct.entity_id = ${p.account} ${accountIsIndexExcluded ? '' : `and ct.entity_id <> ${INDEX_EXCLUDED_TRANSFER_ACCOUNT} `}and ${rangeConditions('ct.consensus_timestamp', p)}`),
    source(`select distinct on (tt.consensus_timestamp) tt.consensus_timestamp, tt.payer_account_id, 4 from token_transfer tt
      where tt.account_id = ${p.account} and ${rangeConditions('tt.consensus_timestamp', p)}`),
  ];
  return `candidate as (
    select distinct on (consensus_timestamp) consensus_timestamp, payer_account_id
    from (${sources.join('\n    union all\n    ')}) as source
    order by consensus_timestamp ${order}, priority
    limit ${p.limit}
  )`;
}
