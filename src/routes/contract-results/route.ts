/** GET /api/v1/contracts/results/{transactionIdOrHash} and /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { encodeEntityId, parseEntityRef } from '../../domain/entityId.js';
import { clampToInt64, MAX_INT64, parseTimestamp } from '../../domain/timestamp.js';
import { parseTransactionId } from '../../domain/transactionId.js';
import { CacheControl } from '../../http/cacheControl.js';
import { ambiguousAddress, badRequest, invalidParameter, notFound } from '../../http/errors.js';
import { validateParams } from '../../http/filters.js';
import { schemaRef } from '../../http/openapi.js';
import { parseBoolean, rules } from '../../http/params.js';
import { queryOf, type RequestQuery } from '../../http/query.js';
import { DecodedFileCache, gasPriceAt } from './gasPrice.js';
import {
  byEntity,
  byEvmAddress,
  byHash,
  byTransactionId,
  findContractIdsByEvmAddress,
  findContractResultDetail,
  findFileContent,
  type ExecutionLookup,
} from './queries.js';
import { SystemFileVersions } from './systemFiles.js';
import { contractResultView } from './view.js';

const BY_TRANSACTION_RULES = { hbar: rules.hbar, nonce: rules.nonce };
const BY_TIMESTAMP_RULES = { hbar: rules.hbar };

const ETH_HASH = /^(0x)?([0-9A-Fa-f]{64})$/;
const INVALID_TRANSACTION_ID =
  'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds';

/**
 * The reference's `/contracts/results/logs` and `/contracts/{id}/results/logs`, which this service does
 * not serve: they go to the not-found handler like any other unknown path (a 404, not a 400 for a
 * malformed id or timestamp, or the upstream's answer), so that a path split sends them to the reference.
 */
const REFERENCE_LOGS = 'logs';

const FEE_SCHEDULE_FILE = 111n;
const EXCHANGE_RATE_FILE = 112n;

declare module 'fastify' {
  interface FastifyInstance {
    /** the system file versions of the gas price, kept in the process: clear() after a data reload */
    systemFileVersions?: SystemFileVersions;
  }
}

const routeOptions = {
  schema: { response: { 200: schemaRef('ContractResultDetails'), 206: schemaRef('ContractResultDetails') } },
  config: { cacheControl: CacheControl.immutable },
};

/**
 * The `hbar` switch (default true): a single `true`/`false` in any case, else the reference's
 * message, which differs from the rule's (several values, each valid, are refused here too).
 */
function hbarOf(query: RequestQuery): boolean {
  const raw = query.entries.get('hbar');
  if (raw === undefined) return true;
  const value = typeof raw === 'string' ? parseBoolean(raw) : undefined;
  if (value !== undefined) return value;
  const shown = Array.isArray(raw) ? raw.join(',') : raw;
  throw badRequest(`Invalid hbar parameter value: ${shown}. Must be 'true' or 'false'`);
}

/** How to find the execution of a transaction id (with its `nonce`) or of an Ethereum hash; null when none can exist. */
function lookupByTransactionIdOrHash(ctx: AppContext, text: string, nonce: number): ExecutionLookup | null {
  const hash = ETH_HASH.exec(text);
  if (hash) return byHash(Buffer.from(hash[2]!, 'hex'));

  const parsed = parseTransactionId(text, ctx.config);
  if (!parsed.ok) throw badRequest(parsed.reason === 'entity' ? `Invalid entity ID "${parsed.entity}"` : INVALID_TRANSACTION_ID);
  const { payer, validStartNs } = parsed.value;
  // no consensus timestamp fits int64 beyond this
  if (validStartNs > MAX_INT64) return null;
  const windowEnd = validStartNs + ctx.config.query.maxTransactionConsensusTimestampRangeNs;
  return byTransactionId(payer, validStartNs, clampToInt64(windowEnd), nonce);
}

/**
 * Loads and renders the contract result of the execution `lookup` finds, setting 206 when its call
 * result is unknown; null when there is none.
 */
interface SystemFileCaches {
  versions: SystemFileVersions;
  decoded: DecodedFileCache;
}

async function contractResultResponse(
  ctx: AppContext,
  files: SystemFileCaches,
  reply: FastifyReply,
  lookup: ExecutionLookup,
  hbar: boolean,
) {
  const { db, config } = ctx;
  const system = (num: bigint) => encodeEntityId(config.shard, config.realm, num);
  const systemFiles = { feeSchedule: system(FEE_SCHEDULE_FILE), exchangeRate: system(EXCHANGE_RATE_FILE) };

  const detail = await findContractResultDetail(db, lookup);
  if (!detail) return null;
  const timestamp = detail.result.consensus_timestamp;

  // an Ethereum transaction carries its own gas price
  const gasPrice = !detail.eth
    ? await gasPriceAt(timestamp, {
        ...(await files.versions.versionsAt(db, systemFiles, timestamp)),
        loadFeeSchedule: (before) => findFileContent(db, systemFiles.feeSchedule, timestamp, before),
        loadExchangeRate: (before) => findFileContent(db, systemFiles.exchangeRate, timestamp, before),
        maxAttempts: config.query.maxFileAttempts,
        cache: files.decoded,
      })
    : null;

  if (detail.result.call_result === null) reply.code(206);
  return contractResultView(detail, {
    hbar,
    chainId: config.network.chainId,
    delegationAddress: config.response.enableDelegationAddress,
    gasPrice,
  });
}

export function registerContractResultRoutes(app: FastifyInstance, ctx: AppContext): void {
  const files: SystemFileCaches = { versions: new SystemFileVersions(), decoded: new DecodedFileCache() };
  app.decorate('systemFileVersions', files.versions);
  app.get<{ Params: { transactionIdOrHash: string } }>(
    '/api/v1/contracts/results/:transactionIdOrHash',
    routeOptions,
    async (request, reply) => {
      if (request.params.transactionIdOrHash === REFERENCE_LOGS) return reply.callNotFound();
      const query = queryOf(request);
      const filters = validateParams(query, BY_TRANSACTION_RULES);
      const hbar = hbarOf(query);
      const nonce = filters.last('nonce') ?? 0;

      const lookup = lookupByTransactionIdOrHash(ctx, request.params.transactionIdOrHash, nonce);
      const response = lookup && (await contractResultResponse(ctx, files, reply, lookup, hbar));
      if (!response) throw notFound();
      return response;
    },
  );

  app.get<{ Params: { contractIdOrAddress: string; timestamp: string } }>(
    '/api/v1/contracts/:contractIdOrAddress/results/:timestamp',
    routeOptions,
    async (request, reply) => {
      if (request.params.timestamp === REFERENCE_LOGS) return reply.callNotFound();
      const query = queryOf(request);
      if (query.error) throw badRequest(query.error);
      const hbar = hbarOf(query);
      const ref = parseEntityRef(request.params.contractIdOrAddress, ctx.config);
      const timestamp = parseTimestamp(request.params.timestamp);
      if (ref === null || timestamp === null) {
        throw invalidParameter(...(ref === null ? ['contractid'] : []), ...(timestamp === null ? ['timestamp'] : []));
      }
      validateParams(query, BY_TIMESTAMP_RULES);

      const at = clampToInt64(timestamp);
      const response = await contractResultResponse(
        ctx,
        files,
        reply,
        ref.kind === 'id' ? byEntity(at, ref.id) : byEvmAddress(at, ref.address),
        hbar,
      );
      if (response) return response;
      // the statement finds nothing for an address more than one live entity holds, which is a 500
      if (ref.kind === 'evm' && (await findContractIdsByEvmAddress(ctx.db, ref.address)).length > 1) throw ambiguousAddress();
      throw notFound();
    },
  );
}
