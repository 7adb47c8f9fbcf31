/**
 * The token effects of one decoded transaction: what its body asks for (an operation) and what its
 * record says happened (fungible and NFT transfers, new total supply, minted serials, automatic
 * associations). Only successful transactions have effects, as in the importer.
 */
import type { TokenTransfers } from '../../proto/transactionDetails.js';
import {
  type NftApproval,
  flattenNftTransfers,
  type NftTransfer,
  readAssociation,
  readNftApprovals,
  readNftRemovals,
  readPendingAirdrops,
  readTokenAndAccount,
  readTokenCreate,
  readTokenMint,
  readTokenOnly,
  readTokenRecord,
  readTokenSerials,
  readTokenUpdate,
  readTokenUpdateNfts,
  type TokenCreateBody,
  type TokenRecordDetails,
  type TokenUpdateBody,
} from '../../proto/tokenBodies.js';
import type { DecodedTransaction } from '../../writers/transactionRows.js';

const SUCCESS = 22;

export type TokenOp =
  | { kind: 'create'; token: bigint; body: TokenCreateBody }
  | { kind: 'update'; token: bigint; body: TokenUpdateBody }
  | { kind: 'pause' | 'unpause'; token: bigint }
  | { kind: 'associate' | 'dissociate'; account: bigint; tokens: bigint[] }
  | { kind: 'freeze' | 'unfreeze' | 'grantKyc' | 'revokeKyc'; token: bigint; account: bigint }
  | { kind: 'mint'; token: bigint; metadata: Buffer[] }
  | { kind: 'burn' | 'wipe'; token: bigint; serials: bigint[] }
  | { kind: 'updateNfts'; token: bigint; serials: bigint[]; metadata: Buffer }
  | { kind: 'approve'; approvals: NftApproval[] }
  | { kind: 'deleteAllowance'; removals: { token: bigint | null; owner: bigint | null; serials: bigint[] }[] }
  /** the [receiver, token] pairs of the pending airdrops a TokenClaimAirdrop claims */
  | { kind: 'claimAirdrop'; claims: [bigint, bigint][] }
  | { kind: 'none' };

export interface TokenTransaction {
  consensusTimestamp: bigint;
  payer: bigint;
  type: number;
  op: TokenOp;
  fungible: TokenTransfers[];
  record: TokenRecordDetails;
  /** the NFTs the record's (or block result's) token transfer lists move */
  nftTransfers: NftTransfer[];
}

const STATUS_OPS: Record<number, 'freeze' | 'unfreeze' | 'grantKyc' | 'revokeKyc'> = {
  31: 'freeze',
  32: 'unfreeze',
  33: 'grantKyc',
  34: 'revokeKyc',
};

function opOf(d: DecodedTransaction): TokenOp {
  const data = d.body.data;
  if (!data) return { kind: 'none' };
  const type = d.body.type;
  switch (type) {
    case 29: {
      const token = d.outcome.receiptEntityId;
      return token === null ? { kind: 'none' } : { kind: 'create', token, body: readTokenCreate(data) };
    }
    case 36: {
      const body = readTokenUpdate(data);
      return body.token === null ? { kind: 'none' } : { kind: 'update', token: body.token, body };
    }
    case 46:
    case 47: {
      const token = readTokenOnly(data);
      return token === null ? { kind: 'none' } : { kind: type === 46 ? 'pause' : 'unpause', token };
    }
    case 40:
    case 41: {
      const { account, tokens } = readAssociation(data);
      return account === null ? { kind: 'none' } : { kind: type === 40 ? 'associate' : 'dissociate', account, tokens };
    }
    case 31:
    case 32:
    case 33:
    case 34: {
      const { token, account } = readTokenAndAccount(data);
      return token === null || account === null ? { kind: 'none' } : { kind: STATUS_OPS[type]!, token, account };
    }
    case 37: {
      const { token, metadata } = readTokenMint(data);
      return token === null ? { kind: 'none' } : { kind: 'mint', token, metadata };
    }
    case 38:
    case 39: {
      const kind = type === 38 ? 'burn' : 'wipe';
      const { token, serials } = readTokenSerials(kind, data);
      return token === null ? { kind: 'none' } : { kind, token, serials };
    }
    case 53: {
      const { token, serials, metadata } = readTokenUpdateNfts(data);
      return token === null || metadata === null ? { kind: 'none' } : { kind: 'updateNfts', token, serials, metadata };
    }
    case 48:
      return { kind: 'approve', approvals: readNftApprovals(data) };
    case 49:
      return { kind: 'deleteAllowance', removals: readNftRemovals(data) };
    case 60: {
      const claims: [bigint, bigint][] = [];
      for (const a of readPendingAirdrops(data)) if (a.receiver !== null && a.token !== null) claims.push([a.receiver, a.token]);
      return { kind: 'claimAirdrop', claims };
    }
    default:
      return { kind: 'none' };
  }
}

/** The token effects of a transaction; null when it has none. */
export function tokenTransactionOf(d: DecodedTransaction): TokenTransaction | null {
  if (d.outcome.result !== SUCCESS) return null;
  const op = opOf(d);
  const record = d.record ? readTokenRecord(d.record) : { newTotalSupply: null, serialNumbers: [], automaticAssociations: [] };
  const fungible = d.outcome.tokenTransfers.filter((l) => l.transfers.length > 0);
  const nftTransfers = flattenNftTransfers(d.outcome.tokenTransfers);
  if (op.kind === 'none' && fungible.length === 0 && nftTransfers.length === 0 && record.automaticAssociations.length === 0) return null;
  return {
    consensusTimestamp: d.consensusTimestamp,
    payer: d.body.payerAccountId,
    type: d.body.type,
    op,
    fungible,
    record,
    nftTransfers,
  };
}
