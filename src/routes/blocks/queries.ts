/** SQL of the blocks endpoints; `record_file` rows, index-backed on consensus_end (PK), index and hash. */
import type { Queryable } from '../../db/db.js';
import { SqlParams, statementShape, type SqlOperator } from '../../db/statements.js';
import type { Order } from '../../http/params.js';

export interface RecordFileRow {
  consensus_start: bigint;
  consensus_end: bigint;
  count: bigint;
  gas_used: bigint | null;
  hapi_version_major: number | null;
  hapi_version_minor: number | null;
  hapi_version_patch: number | null;
  hash: string;
  index: bigint;
  /** hex, rendered by the database: the bytes are only ever shown as hex */
  logs_bloom: string | null;
  name: string;
  prev_hash: string;
  size: number | null;
}

const COLUMNS = `consensus_start, consensus_end, count, gas_used, hapi_version_major, hapi_version_minor,
  hapi_version_patch, hash, index, encode(logs_bloom, 'hex') as logs_bloom, name, prev_hash, coalesce(size, length(bytes)) as size`;

export type BlockColumn = 'index' | 'consensus_end';

export interface BlockCondition {
  column: BlockColumn;
  operator: SqlOperator;
  value: bigint;
}

export async function findBlocks(
  db: Queryable,
  conditions: readonly BlockCondition[],
  orderBy: BlockColumn,
  order: Order,
  limit: number,
): Promise<RecordFileRow[]> {
  const params = new SqlParams();
  const where = conditions.map(({ column, operator, value }) => ({ column, operator, value: params.add(value) }));
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a page size is a positive integer, not ${limit}`);
  return db.query<RecordFileRow>(blocksSql(where, orderBy, order, limit), params.values);
}

/**
 * The list statement; each condition's `value` is a placeholder and `limit` a page size written
 * into the text. PostgreSQL estimates a placeholder LIMIT at a tenth of the table, so the
 * statement's generic plan never looked cheaper than a custom one and it was planned again at
 * every execution; with the number in the text each page size keeps one generic plan per
 * connection (tools/bench/README.md, "Statements planned at every execution").
 */
const blocksSql = statementShape(
  (
    conditions: readonly { column: BlockColumn; operator: SqlOperator; value: string }[],
    orderBy: BlockColumn,
    order: Order,
    limit: number,
  ) => {
    const where = conditions.map((c) => `${c.column} ${c.operator} ${c.value}`);
    return `select ${COLUMNS} from record_file
    ${where.length ? 'where ' + where.join(' and ') : ''}
    order by ${orderBy} ${order}
    limit ${limit}`;
  },
);

const BY_NUMBER_SQL = `select ${COLUMNS} from record_file where index = $1 limit 2`;

export async function findBlocksByNumber(db: Queryable, number: bigint): Promise<RecordFileRow[]> {
  return db.query<RecordFileRow>(BY_NUMBER_SQL, [number]);
}

/**
 * Every text in [prefix, prefix || '~') under the "C" collation starts with the prefix (a text that
 * differs earlier sorts outside the range), and every hex hash that starts with it is inside, so
 * the index range alone is the match. A `starts_with` filter beside it made PostgreSQL plan the
 * statement at every execution (its planner support), three times the lookup's own cost.
 */
const BY_HASH_PREFIX_SQL = `select ${COLUMNS} from record_file
     where hash collate "C" >= $1 and hash collate "C" < $1 || '~'
     limit 2`;

/** Blocks whose hash starts with `prefix` (lower-case hex); the range keeps it on the hash index. */
export async function findBlocksByHashPrefix(db: Queryable, prefix: string): Promise<RecordFileRow[]> {
  return db.query<RecordFileRow>(BY_HASH_PREFIX_SQL, [prefix]);
}
