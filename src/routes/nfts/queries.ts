/**
 * SQL of the account NFT list: `nft` rows of one owner in (token_id, serial_number) order, each part
 * of the key range a separate limited scan of `nft__account_token_serial` (or, with a spender filter,
 * `nft__account_spender_token_serial`), the union cut to the page, then the token entity joined for
 * its `deleted` flag.
 */
import type { Queryable } from '../../db/db.js';
import { SQL_OPERATORS, SqlParams, statementShape } from '../../db/statements.js';
import type { Order } from '../../http/params.js';
import { accountIdSql, type AccountRef } from '../accountRef.js';
import type { BoundOperator, KeyCondition } from './bounds.js';

export interface NftRow {
  account_id: bigint | null;
  created_timestamp: bigint | null;
  delegating_spender: bigint | null;
  deleted: boolean | null;
  metadata: Uint8Array | null;
  modified_timestamp: bigint | null;
  serial_number: bigint;
  spender: bigint | null;
  token_id: bigint;
}

export interface SpenderCondition {
  operator: BoundOperator;
  value: bigint;
}

export interface NftQuery {
  /** resolved by the statement itself when an EVM address or alias */
  owner: AccountRef;
  /** token/serial conditions of each part of the range (at least one part) */
  parts: readonly KeyCondition[][];
  /** ANDed into every part */
  spenderRange: readonly SpenderCondition[];
  /** spender IN these values (every part); null for no such filter */
  spenderIn: readonly bigint[] | null;
  order: Order;
  limit: number;
}

const PART_COLUMNS = `account_id, created_timestamp, delegating_spender, deleted, metadata, serial_number, spender,
  lower(timestamp_range) as modified_timestamp, token_id`;

/** The page, with how many entities the owner's path value matched (see `accountIdSql`). */
export interface NftPage {
  matches: number;
  rows: NftRow[];
}

export async function findNfts(db: Queryable, query: NftQuery): Promise<NftPage> {
  const params = new SqlParams();
  const shape: NftShape = {
    resolve: accountIdSql(query.owner, params),
    limit: params.add(query.limit),
    spenderRange: query.spenderRange.map((c) => ({ operator: c.operator, value: params.add(c.value) })),
    spenderIn: query.spenderIn ? query.spenderIn.map((v) => params.add(v)) : null,
    parts: query.parts.map((conditions) =>
      conditions.map((c) => ({ primary: c.primary, operator: c.operator, value: params.add(c.value) })),
    ),
    order: query.order,
  };
  const rows = await db.query<NftRow & { matches: number }>(nftPageSql(shape), params.values);
  return { matches: rows[0]!.matches, rows: rows[0]!.token_id === null ? [] : rows };
}

/** The statement of findNfts: `resolve` the owner's accountIdSql, every `value` and `limit` a placeholder. */
interface NftShape {
  resolve: string;
  limit: string;
  spenderRange: { operator: BoundOperator; value: string }[];
  spenderIn: string[] | null;
  parts: { primary: boolean; operator: BoundOperator; value: string }[][];
  order: Order;
}

const nftPageSql = statementShape(({ resolve, limit, spenderRange, spenderIn, parts, order }: NftShape) => {
  const shared = spenderRange.map((c) => `spender ${SQL_OPERATORS[c.operator]} ${c.value}`);
  if (spenderIn) shared.push(`spender in (${spenderIn.join(', ')})`);

  const orderBy = `order by token_id ${order}, serial_number ${order}`;
  const selects = parts.map((conditions) => {
    const where = [
      'account_id = r.id',
      ...conditions.map((c) => `${c.primary ? 'token_id' : 'serial_number'} ${SQL_OPERATORS[c.operator]} ${c.value}`),
      ...shared,
    ];
    return `select ${PART_COLUMNS} from nft where ${where.join(' and ')} ${orderBy} limit ${limit}`;
  });
  const page = selects.length === 1 ? selects[0] : `${selects.map((part) => `(${part})`).join(' union all ')} ${orderBy} limit ${limit}`;

  // one row with the NFT columns NULL when the page is empty, so that `matches` always arrives
  return `select r.matches, n.* from (${resolve}) r
    left join lateral (
      select p.account_id, p.created_timestamp, p.delegating_spender, p.deleted or coalesce(e.deleted, false) as deleted,
        p.metadata, p.modified_timestamp, p.serial_number, p.spender, p.token_id
      from (${page}) p
      left join entity e on e.id = p.token_id
    ) n on true
    order by n.token_id ${order}, n.serial_number ${order}`;
});
