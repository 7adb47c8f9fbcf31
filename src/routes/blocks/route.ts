/** GET /api/v1/blocks and /api/v1/blocks/{hashOrNumber}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { clampToInt64, parseTimestamp } from '../../domain/timestamp.js';
import { CacheControl } from '../../http/cache.js';
import { invalidParameter, notFound } from '../../http/errors.js';
import { buildFilters, validateParams, type Filter } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { linkHeader, nextLink } from '../../http/pagination.js';
import { isNonNegativeInt64, limitOf, orderOf, rules } from '../../http/params.js';
import type { RequestQuery } from '../../http/query.js';
import { findBlocks, findBlocksByHashPrefix, findBlocksByNumber, type BlockColumn, type BlockCondition, type SqlOperator } from './queries.js';
import { blockView } from './view.js';

const LIST_RULES = {
  'block.number': rules.blockNumber,
  limit: rules.limit,
  order: rules.order,
  timestamp: rules.timestamp,
};

const SQL_OPERATORS: Record<Filter['operator'], SqlOperator> = { eq: '=', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** A block number filter value: decimal, or 0x-prefixed hex. */
export function blockNumberValue(text: string): bigint {
  return BigInt(text);
}

function conditionOf(filter: Filter): BlockCondition | null {
  if (filter.key === 'block.number') return { column: 'index', operator: SQL_OPERATORS[filter.operator], value: blockNumberValue(filter.value) };
  if (filter.key === 'timestamp') return { column: 'consensus_end', operator: SQL_OPERATORS[filter.operator], value: clampToInt64(parseTimestamp(filter.value)!) };
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
      const query = request.query as RequestQuery;
      const filters = buildFilters(query, LIST_RULES, ctx.config.query.maxRepeatedQueryParameters);
      const conditions = filters.map(conditionOf).filter((c): c is BlockCondition => c !== null);
      const orderBy: BlockColumn = conditions[0]?.column ?? 'consensus_end';
      const order = orderOf(filters);
      const limit = limitOf(filters, ctx.startup.defaultLimit, ctx.config.response.limit.max);

      const rows = await findBlocks(blocksDb(ctx), conditions, orderBy, order, limit);
      const last = rows.at(-1);
      const next =
        last && rows.length === limit
          ? nextLink(request.url.split('?')[0]!, query, order, [{ field: 'block.number', value: last.index.toString(), toBound: blockNumberValue }])
          : null;
      if (next) reply.header('link', linkHeader(next));
      return { blocks: rows.map(blockView), links: { next } };
    },
  );

  app.get<{ Params: { hashOrNumber: string } }>(
    '/api/v1/blocks/:hashOrNumber',
    { schema: { response: { 200: schemaRef('Block') } }, config: { cacheControl: CacheControl.immutable } },
    async (request) => {
      validateParams(request.query as RequestQuery, {});
      const { hashOrNumber } = request.params;
      const hash = HASH.exec(hashOrNumber);
      let rows;
      if (hash) rows = await findBlocksByHashPrefix(blocksDb(ctx), hash[2]!.toLowerCase());
      else if (isNonNegativeInt64(hashOrNumber)) rows = await findBlocksByNumber(blocksDb(ctx), BigInt(hashOrNumber));
      else throw invalidParameter('hashOrNumber');
      if (rows.length !== 1) throw notFound();
      return blockView(rows[0]!);
    },
  );
}
