/** GET /api/v1/accounts/{idOrAliasOrEvmAddress}. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { encodeEntityId } from '../../domain/entityId.js';
import { parseTimestamp } from '../../domain/timestamp.js';
import { KNOWN_TRANSACTION_TYPE_IDS, transactionTypeId } from '../../domain/transactionTypes.js';
import { CacheControl } from '../../http/cache.js';
import { notFound } from '../../http/errors.js';
import { buildFilters, filtersOf, type Filter } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { linkHeader, nextLink } from '../../http/pagination.js';
import { booleanOf, limitOf, orderOf, rules, type Order } from '../../http/params.js';
import type { RequestQuery } from '../../http/query.js';
import { loadAccountState } from './account.js';
import { ACCOUNT_PATH_PARAM, idOfRef, parseAccountRef } from './idResolution.js';
import { bindTimestampRange, foldTimestampFilters, isEmptyRange, type TimestampRange } from './timestampRange.js';
import { findFirstTransactionTimestamp, type TypeFilter } from './transactionQueries.js';
import { loadTransactionPage, timestampPredicate } from './transactions.js';
import type { TransactionView } from './transactionView.js';
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

/** `transactiontype` values as type ids; `UNKNOWN` stands for every id outside the known ones, `NODE` for none. */
function typeFilterOf(filters: readonly Filter[]): TypeFilter | null {
  const values = filtersOf(filters, 'transactiontype');
  if (values.length === 0) return null;
  const ids: number[] = [];
  let unknown = false;
  for (const { value } of values) {
    const id = transactionTypeId(value);
    if (id !== undefined) ids.push(id);
    else if (value.toUpperCase() === 'UNKNOWN') unknown = true;
  }
  return { ids, unknown, knownIds: KNOWN_TRANSACTION_TYPE_IDS };
}

interface TransactionsPage {
  transactions: TransactionView[];
  next: string | null;
}

const NO_TRANSACTIONS: TransactionsPage = { transactions: [], next: null };

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext): void {
  /** The page of the account's transactions in the range and its next link (§3.1 step 7). */
  async function transactionsPage(accountId: bigint, range: TimestampRange, filters: readonly Filter[], path: string, query: RequestQuery): Promise<TransactionsPage> {
    if (range.eq.length > 1) return NO_TRANSACTIONS;
    const { config } = ctx;
    const order: Order = orderOf(filters);
    const limit = limitOf(filters, ctx.startup.defaultLimit, config.response.limit.max);

    let bound = { range, nextTimestamp: null as string | null };
    if (range.eq.length === 0 && config.query.bindTimestampRange) {
      const first = range.lower === null ? await findFirstTransactionTimestamp(ctx.db) : 0n;
      bound = bindTimestampRange(range, order, first, ctx.clock.nowNs(), config.query.maxTransactionsTimestampRangeNs);
    }
    const timestamps = timestampPredicate(bound.range);
    const transactions = timestamps
      ? await loadTransactionPage(ctx.db, {
          accountId,
          timestamps,
          types: typeFilterOf(filters),
          precedingTypes: config.query.precedingTransactionTypes,
          stakingRewardAccount: encodeEntityId(config.shard, config.realm, STAKING_REWARD_ACCOUNT_NUM),
          order,
          limit,
        })
      : [];

    // a full page continues after its last transaction; a bound range continues after the moved bound
    const anchor = transactions.length === limit ? transactions.at(-1)?.consensus_timestamp : bound.nextTimestamp;
    const next = anchor ? nextLink(path, query, order, [{ field: 'timestamp', value: anchor, toBound: parseTimestamp }]) : null;
    return { transactions, next };
  }

  app.get<{ Params: { idOrAliasOrEvmAddress: string } }>(
    '/api/v1/accounts/:idOrAliasOrEvmAddress',
    { schema: { response: { 200: schemaRef('AccountBalanceTransactions') } }, config: { cacheControl: CacheControl.account } },
    async (request, reply) => {
      const { config } = ctx;
      const query = request.query as RequestQuery;
      // query parameters are validated before the path value is resolved
      const filters = buildFilters(query, RULES, config.query.maxRepeatedQueryParameters);
      const ref = parseAccountRef(request.params[ACCOUNT_PATH_PARAM], { shard: config.shard, realm: config.realm });

      const timestampFilters = filtersOf(filters, 'timestamp');
      const range = foldTimestampFilters(timestampFilters);
      if (isEmptyRange(range)) {
        // an unknown EVM address or alias is reported before the empty range
        await idOfRef(ctx.db, ref);
        throw notFound('Timestamp range is empty');
      }

      const path = request.url.split('?')[0]!;
      const withTransactions = booleanOf(filters, 'transactions', true);
      const accountState = () =>
        loadAccountState(ctx.db, ref, timestampFilters.length > 0 ? range : null, {
          treasury: encodeEntityId(config.shard, config.realm, TREASURY_NUM),
          tokenBalanceLimit: config.response.limit.tokenBalance.singleAccount,
          nowNs: ctx.clock.nowNs(),
        });
      const pageOf = (id: bigint) => (withTransactions ? transactionsPage(id, range, filters, path, query) : NO_TRANSACTIONS);
      // an id runs both statements at once; an EVM address or alias is resolved by the state statement first
      const [state, page] =
        ref.kind === 'id'
          ? await Promise.all([accountState(), pageOf(ref.id)])
          : await accountState().then(async (found) => [found, found ? await pageOf(found.row.id) : NO_TRANSACTIONS] as const);
      if (!state) throw notFound();

      if (page.next) reply.header('link', linkHeader(page.next));
      return {
        ...accountView(state.row, state.balance, config.response.enableDelegationAddress),
        transactions: page.transactions,
        links: { next: page.next },
      };
    },
  );
}
