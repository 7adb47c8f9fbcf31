/** GET /api/v1/accounts/{idOrAliasOrEvmAddress}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { encodeEntityId } from '../../domain/entityId.js';
import { parseTimestamp } from '../../domain/timestamp.js';
import { CacheControl } from '../../http/cacheControl.js';
import { notFound } from '../../http/errors.js';
import { buildFilters } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { listLinks } from '../../http/pagination.js';
import { pageSize, rules } from '../../http/params.js';
import { queryOf } from '../../http/query.js';
import { ACCOUNT_PATH_PARAM, idOfRef, parseAccountRef } from '../accountRef.js';
import { loadAccountState } from './account.js';
import { foldTimestampFilters, isEmptyRange } from './timestampRange.js';
import { loadTransactionPage, NO_TRANSACTIONS, typeFilterOf, type RangeBinding } from './transactions/page.js';
import { accountView } from './view.js';

const RULES = {
  limit: rules.limit,
  order: rules.order,
  timestamp: rules.timestamp,
  transactiontype: rules.transactiontype,
  transactions: rules.transactions,
};

const TREASURY_NUM = 2n;
const STAKING_REWARD_ACCOUNT_NUM = 800n;

const rangeBinding = (ctx: AppContext): RangeBinding => ({
  enabled: ctx.config.query.bindTimestampRange,
  maxWidthNs: ctx.config.query.maxTransactionsTimestampRangeNs,
  nowNs: () => ctx.clock.nowNs(),
});

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext): void {
  const missing = new Set(ctx.missingIndexes.map((i) => i.name));
  const typeIndexes = {
    payer: !missing.has('transaction__payer_type_timestamp'),
    entity: !missing.has('entity_transaction__entity_type_timestamp'),
  };
  app.get<{ Params: { [ACCOUNT_PATH_PARAM]: string } }>(
    `/api/v1/accounts/:${ACCOUNT_PATH_PARAM}`,
    { schema: { response: { 200: schemaRef('AccountBalanceTransactions') } }, config: { cacheControl: CacheControl.account } },
    async (request, reply) => {
      const { config } = ctx;
      // query parameters are validated before the path value is resolved
      const filters = buildFilters(queryOf(request), RULES, config.query.maxRepeatedQueryParameters);
      const ref = parseAccountRef(request.params[ACCOUNT_PATH_PARAM], { shard: config.shard, realm: config.realm });

      const timestampFilters = filters.of('timestamp');
      const range = foldTimestampFilters(timestampFilters);
      if (isEmptyRange(range)) {
        // an unknown EVM address or alias is reported before the empty range
        await idOfRef(ctx.db, ref);
        throw notFound('Timestamp range is empty');
      }

      const order = filters.last('order') ?? 'desc';
      const accountState = () =>
        loadAccountState(ctx.db, ref, timestampFilters.length > 0 ? range : null, {
          treasury: encodeEntityId(config.shard, config.realm, TREASURY_NUM),
          tokenBalanceLimit: config.response.limit.tokenBalance.singleAccount,
          nowNs: ctx.clock.nowNs(),
        });
      const withTransactions = filters.last('transactions') ?? true;
      const pageRequest = {
        range,
        types: typeFilterOf(filters.of('transactiontype').map((f) => f.value)),
        precedingTypes: config.query.precedingTransactionTypes,
        transfers: config.query.transfers,
        typeIndexes,
        stakingRewardAccount: encodeEntityId(config.shard, config.realm, STAKING_REWARD_ACCOUNT_NUM),
        order,
        limit: pageSize(filters.last('limit'), ctx.config.response.limit.default, config.response.limit.max),
      };
      const pageOf = (accountId: bigint) =>
        withTransactions ? loadTransactionPage(ctx.db, { ...pageRequest, accountId }, rangeBinding(ctx)) : NO_TRANSACTIONS;
      // an id runs both statements at once; an EVM address or alias is resolved by the state statement first
      const [state, page] =
        ref.kind === 'id'
          ? await Promise.all([accountState(), pageOf(ref.id)])
          : await accountState().then(async (found) => [found, found ? await pageOf(found.row.id) : NO_TRANSACTIONS] as const);
      if (!state) throw notFound();

      const anchors = page.continueFrom ? [{ field: 'timestamp', value: page.continueFrom, toBound: parseTimestamp }] : [];
      return {
        ...accountView(state.row, state.balance, config.response.enableDelegationAddress),
        transactions: page.transactions,
        links: listLinks(request, reply, order, anchors, config),
      };
    },
  );
}
