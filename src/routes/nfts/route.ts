/** GET /api/v1/accounts/{idOrAliasOrEvmAddress}/nfts. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/db.js';
import { formatEntityId, parseEntityIdValue, type EntityRef, type ShardRealm } from '../../domain/entityId.js';
import { CacheControl } from '../../http/cacheControl.js';
import { ambiguousAddress, badRequest } from '../../http/errors.js';
import { buildFilters } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { listLinks, type LinkAnchor } from '../../http/pagination.js';
import { pageSize, parseNonNegativeInt64 } from '../../http/params.js';
import { queryOf } from '../../http/query.js';
import { ACCOUNT_PATH_PARAM, checkMatches, findIdsByEvmAddress, idOfRef, parseAccountRef, type AccountRef } from '../accountRef.js';
import { rangeParts, type Bound } from './bounds.js';
import { nftRules, readNftFilters, SERIAL_NUMBER, TOKEN_ID, type NftFilters } from './filters.js';
import { findNfts, type NftRow, type SpenderCondition } from './queries.js';
import { nftView } from './view.js';

/** The packed id of a spender reference; an opaque EVM address names the live entity holding it, null when none does. */
async function spenderId(db: Queryable, ref: EntityRef): Promise<bigint | null> {
  if (ref.kind === 'id') return ref.id;
  const rows = await findIdsByEvmAddress(db, ref.address);
  if (rows.length > 1) throw ambiguousAddress();
  return rows[0]?.id ?? null;
}

/** The spender conditions with EVM addresses resolved, or null when they can match no NFT. */
async function spenderConditions(db: Queryable, filters: NftFilters): Promise<{ range: SpenderCondition[]; in: bigint[] | null } | null> {
  const range: SpenderCondition[] = [];
  for (const f of filters.spenderRange) {
    const value = await spenderId(db, f.ref);
    if (value === null) return null;
    range.push({ operator: f.operator, value });
  }
  if (filters.spenderEqual.length === 0) return { range, in: null };
  const values: bigint[] = [];
  for (const f of filters.spenderEqual) {
    const value = await spenderId(db, f.ref);
    if (value !== null) values.push(value);
  }
  return values.length === 0 ? null : { range, in: values };
}

/**
 * Runs the reading of the filters; when it fails, an EVM address or alias that names no account is
 * reported instead (the reference resolves the owner before it reads the filters).
 */
async function ownerErrorsFirst<T>(db: Queryable, owner: AccountRef, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    await idOfRef(db, owner);
    throw err;
  }
}

/** Continuation anchors of the reference: a column is carried on when it is ranged or absent. */
function linkAnchors(last: NftRow, token: Bound, serial: Bound, system: ShardRealm): LinkAnchor[] {
  const anchors: LinkAnchor[] = [];
  if (token.hasRange() || token.isEmpty()) {
    anchors.push({
      field: TOKEN_ID,
      value: String(formatEntityId(last.token_id)),
      inclusive: serial.equal === null,
      toBound: (v) => parseEntityIdValue(v, system),
    });
  }
  if (serial.hasRange() || serial.isEmpty()) {
    anchors.push({ field: SERIAL_NUMBER, value: last.serial_number.toString(), toBound: (v) => parseNonNegativeInt64(v) ?? null });
  }
  return anchors;
}

export function registerNftRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { [ACCOUNT_PATH_PARAM]: string } }>(
    `/api/v1/accounts/:${ACCOUNT_PATH_PARAM}/nfts`,
    { schema: { response: { 200: schemaRef('Nfts') } }, config: { cacheControl: CacheControl.default } },
    async (request, reply) => {
      const system = ctx.config;
      const query = queryOf(request);
      // the reference parses the query string before routing, so its errors come first
      if (query.error) throw badRequest(query.error);
      const owner = parseAccountRef(request.params[ACCOUNT_PATH_PARAM], system);
      const { filters, nftFilters, spender } = await ownerErrorsFirst(ctx.db, owner, async () => {
        const filters = buildFilters(query, nftRules(system), ctx.config.query.maxRepeatedQueryParameters);
        const nftFilters = readNftFilters(filters);
        return { filters, nftFilters, spender: await spenderConditions(ctx.db, nftFilters) };
      });
      const { token, serial } = nftFilters;
      const order = filters.last('order') ?? 'desc';
      const limit = pageSize(filters.last('limit'), ctx.config.response.limit.default, ctx.config.response.limit.max);

      let rows: NftRow[] = [];
      if (spender) {
        const page = await findNfts(ctx.db, {
          owner,
          parts: rangeParts(token, serial),
          spenderRange: spender.range,
          spenderIn: spender.in,
          order,
          limit,
        });
        checkMatches(owner, page.matches);
        rows = page.rows;
      } else {
        await idOfRef(ctx.db, owner); // nothing to list, but an unknown owner is still a 404
      }

      const last = rows.at(-1);
      const anchors = last && rows.length === limit && !(token.equal && serial.equal) ? linkAnchors(last, token, serial, system) : [];
      return { nfts: rows.map(nftView), links: listLinks(request, reply, order, anchors, ctx.config) };
    },
  );
}
