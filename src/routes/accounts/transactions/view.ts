/** Page rows (a transaction with its transfers as arrays) → Transaction objects of the account route. */
import { formatEntityId } from '../../../domain/entityId.js';
import { formatKey, type KeyView } from '../../../domain/key.js';
import { decodeCustomFeeLimit, type CustomFeeLimitView } from '../../../domain/protobuf.js';
import { resultName } from '../../../domain/resultCodes.js';
import { formatTimestamp } from '../../../domain/timestamp.js';
import { formatTransactionId } from '../../../domain/transactionId.js';
import { transactionTypeName } from '../../../domain/transactionTypes.js';
import type { PageRow } from './pageSql.js';

export interface TransferView {
  account: string | null;
  amount: bigint;
  is_approval: boolean;
}

export interface TokenTransferView {
  token_id: string | null;
  account: string | null;
  amount: bigint;
  is_approval: boolean;
}

export interface NftTransferView {
  is_approval: boolean;
  receiver_account_id: string | null;
  sender_account_id: string | null;
  serial_number: unknown;
  token_id: string | null;
}

export interface StakingRewardTransferView {
  account: string | null;
  amount: bigint;
}

export interface TransactionView {
  batch_key: KeyView | null;
  bytes: string | null;
  charged_tx_fee: bigint | null;
  consensus_timestamp: string | null;
  entity_id: string | null;
  high_volume: boolean;
  high_volume_pricing_multiplier: bigint | null;
  max_custom_fees: CustomFeeLimitView[];
  max_fee: string | null;
  memo_base64: string | null;
  name: string;
  nft_transfers: NftTransferView[];
  node: string | null;
  nonce: number;
  parent_consensus_timestamp: string | null;
  result: string;
  scheduled: boolean;
  staking_reward_transfers: StakingRewardTransferView[];
  token_transfers: TokenTransferView[];
  transaction_hash: string | null;
  transaction_id: string;
  transfers: TransferView[];
  valid_duration_seconds: string | null;
  valid_start_timestamp: string | null;
}

/** An id as stored in the `nft_transfer` JSON (a number, a big integer or null). */
function jsonEntityId(value: unknown): string | null {
  if (typeof value === 'bigint') return formatEntityId(value);
  if (typeof value === 'number' && Number.isInteger(value)) return formatEntityId(BigInt(value));
  return null;
}

function nftTransfersOf(json: unknown): NftTransferView[] {
  if (!Array.isArray(json)) return [];
  return json.map((t: Record<string, unknown>) => ({
    is_approval: t.is_approval === true,
    receiver_account_id: jsonEntityId(t.receiver_account_id),
    sender_account_id: jsonEntityId(t.sender_account_id),
    serial_number: t.serial_number ?? null,
    token_id: jsonEntityId(t.token_id),
  }));
}

function maxCustomFeesOf(limits: Uint8Array[] | null): CustomFeeLimitView[] {
  return (limits ?? []).flatMap((limit) => decodeCustomFeeLimit(limit));
}

function transfersOf(row: PageRow): TransferView[] {
  const accounts = row.transfer_accounts;
  if (accounts === null) return [];
  const amounts = row.transfer_amounts!;
  const approvals = row.transfer_approvals!;
  const out: TransferView[] = new Array(accounts.length);
  for (let i = 0; i < accounts.length; i++)
    out[i] = { account: formatEntityId(accounts[i]), amount: amounts[i]!, is_approval: approvals[i] === true };
  return out;
}

function tokenTransfersOf(row: PageRow): TokenTransferView[] {
  const tokens = row.token_ids;
  if (tokens === null) return [];
  const accounts = row.token_accounts!;
  const amounts = row.token_amounts!;
  const approvals = row.token_approvals!;
  const out: TokenTransferView[] = new Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    out[i] = {
      token_id: formatEntityId(tokens[i]),
      account: formatEntityId(accounts[i]),
      amount: amounts[i]!,
      is_approval: approvals[i] === true,
    };
  }
  return out;
}

function stakingRewardTransfersOf(row: PageRow): StakingRewardTransferView[] {
  const accounts = row.reward_accounts;
  if (accounts === null) return [];
  const amounts = row.reward_amounts!;
  return accounts.map((account, i) => ({ account: formatEntityId(account), amount: amounts[i]! }));
}

export function transactionView(row: PageRow): TransactionView {
  return {
    batch_key: formatKey(row.batch_key),
    bytes: row.bytes,
    charged_tx_fee: row.charged_tx_fee,
    consensus_timestamp: formatTimestamp(row.consensus_timestamp),
    entity_id: formatEntityId(row.entity_id),
    high_volume: row.high_volume === true,
    high_volume_pricing_multiplier: row.high_volume_pricing_multiplier,
    max_custom_fees: maxCustomFeesOf(row.max_custom_fees),
    max_fee: row.max_fee,
    memo_base64: row.memo_base64,
    name: transactionTypeName(row.type),
    nft_transfers: nftTransfersOf(row.nft_transfer),
    node: formatEntityId(row.node_account_id),
    nonce: row.nonce,
    parent_consensus_timestamp: formatTimestamp(row.parent_consensus_timestamp),
    result: resultName(row.result),
    scheduled: row.scheduled,
    staking_reward_transfers: stakingRewardTransfersOf(row),
    token_transfers: tokenTransfersOf(row),
    transaction_hash: row.transaction_hash,
    transaction_id: formatTransactionId(row.payer_account_id, row.valid_start_ns),
    transfers: transfersOf(row),
    valid_duration_seconds: row.valid_duration_seconds,
    valid_start_timestamp: formatTimestamp(row.valid_start_ns),
  };
}
