/** GET /api/v1/blocks and /api/v1/blocks/{hashOrNumber}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { SQL_OPERATORS } from '../../db/statements.js';
import { clampToInt64 } from '../../domain/timestamp.js';
import { CacheControl } from '../../http/cacheControl.js';
import { invalidParameter, notFound } from '../../http/errors.js';
import { buildFilters, validateParams, type Filter } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { listLinks, type LinkAnchor } from '../../http/pagination.js';
import { pageSize, parseBlockNumber, parseNonNegativeInt64, rules } from '../../http/params.js';
import { queryOf } from '../../http/query.js';
import {
  findBlocks,
  findBlocksByHashPrefix,
  findBlocksByNumber,
  type BlockColumn,
  type BlockCondition,
  type RecordFileRow,
} from './queries.js';
import { blockView } from './view.js';

const LIST_RULES = {
  'block.number': rules.blockNumber,
  limit: rules.limit,
  order: rules.order,
  timestamp: rules.timestamp,
};

function conditionOf(filter: Filter<typeof LIST_RULES>): BlockCondition | null {
  if (filter.key === 'block.number') return { column: 'index', operator: SQL_OPERATORS[filter.operator], value: filter.value };
  if (filter.key === 'timestamp')
    return { column: 'consensus_end', operator: SQL_OPERATORS[filter.operator], value: clampToInt64(filter.value) };
  return null;
}

const HASH = /^(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})$/;

/** The Db of the block lookups: the primary's with read replicas when `db.primaryReads` names them, so that a lagging replica never hides the newest block. */
const blocksDb = (ctx: AppContext) => (ctx.config.db.primaryReads.includes('blocks') && ctx.db.primary ? ctx.db.primary() : ctx.db);

export function registerBlockRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/v1/blocks',
    { schema: { response: { 200: schemaRef('Blocks') } }, config: { cacheControl: CacheControl.default } },
    async (request, reply) => {
      const filters = buildFilters(queryOf(request), LIST_RULES, ctx.config.query.maxRepeatedQueryParameters);
      const conditions = filters.all.map(conditionOf).filter((c): c is BlockCondition => c !== null);
      const orderBy: BlockColumn = conditions[0]?.column ?? 'consensus_end';
      const order = filters.last('order') ?? 'desc';
      const limit = pageSize(filters.last('limit'), ctx.config.response.limit.default, ctx.config.response.limit.max);

      const rows = await findBlocks(blocksDb(ctx), conditions, orderBy, order, limit);
      const last = rows.at(-1);
      const anchors: LinkAnchor[] =
        last && rows.length === limit
          ? [{ field: 'block.number', value: last.index.toString(), toBound: (v) => parseBlockNumber(v) ?? null }]
          : [];
      return { blocks: rows.map(blockView), links: listLinks(request, reply, order, anchors, ctx.config) };
    },
  );

  app.get<{ Params: { hashOrNumber: string } }>(
    '/api/v1/blocks/:hashOrNumber',
    { schema: { response: { 200: schemaRef('Block') } }, config: { cacheControl: CacheControl.immutable } },
    async (request) => {
      validateParams(queryOf(request), {});
      const { hashOrNumber } = request.params;
      const hash = HASH.exec(hashOrNumber);
      let rows: RecordFileRow[];
      if (hash) rows = await findBlocksByHashPrefix(blocksDb(ctx), hash[2]!.toLowerCase());
      else {
        const number = parseNonNegativeInt64(hashOrNumber);
        if (number === undefined) throw invalidParameter('hashOrNumber');
        rows = await findBlocksByNumber(blocksDb(ctx), number);
      }
      if (rows.length !== 1) throw notFound();
      return blockView(rows[0]!);
    },
  );
}
