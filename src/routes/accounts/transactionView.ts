/** Transaction rows and their transfers → Transaction objects of the account route. */
import { toBase64 } from '../../domain/bytes.js';
import { formatEntityId } from '../../domain/entityId.js';
import { formatKey, type KeyView } from '../../domain/key.js';
import { decodeCustomFeeLimit, type CustomFeeLimitView } from '../../domain/protobuf.js';
import { resultName } from '../../domain/resultCodes.js';
import { formatTimestamp } from '../../domain/timestamp.js';
import { formatTransactionId } from '../../domain/transactionId.js';
import { transactionTypeName } from '../../domain/transactionTypes.js';
import type { CryptoTransferRow, StakingRewardTransferRow, TokenTransferRow, TransactionRow } from './transactionQueries.js';

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

/** The transfers of one transaction, found by its timestamp and payer. */
export interface TransactionTransfers {
  crypto: CryptoTransferRow[];
  token: TokenTransferRow[];
  stakingRewards: StakingRewardTransferRow[];
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

const asString = (value: bigint | null) => (value === null ? null : value.toString());

export function transactionView(row: TransactionRow, transfers: TransactionTransfers): TransactionView {
  return {
    batch_key: formatKey(row.batch_key),
    bytes: toBase64(row.transaction_bytes),
    charged_tx_fee: row.charged_tx_fee,
    consensus_timestamp: formatTimestamp(row.consensus_timestamp),
    entity_id: formatEntityId(row.entity_id),
    high_volume: row.high_volume === true,
    high_volume_pricing_multiplier: row.high_volume_pricing_multiplier,
    max_custom_fees: maxCustomFeesOf(row.max_custom_fees),
    max_fee: asString(row.max_fee),
    memo_base64: toBase64(row.memo),
    name: transactionTypeName(row.type),
    nft_transfers: nftTransfersOf(row.nft_transfer),
    node: formatEntityId(row.node_account_id),
    nonce: row.nonce,
    parent_consensus_timestamp: formatTimestamp(row.parent_consensus_timestamp),
    result: resultName(row.result),
    scheduled: row.scheduled,
    staking_reward_transfers: transfers.stakingRewards.map((t) => ({ account: formatEntityId(t.account_id), amount: t.amount })),
    token_transfers: transfers.token.map((t) => ({
      token_id: formatEntityId(t.token_id),
      account: formatEntityId(t.account_id),
      amount: t.amount,
      is_approval: t.is_approval === true,
    })),
    transaction_hash: toBase64(row.transaction_hash),
    transaction_id: formatTransactionId(row.payer_account_id, row.valid_start_ns),
    transfers: transfers.crypto.map((t) => ({ account: formatEntityId(t.entity_id), amount: t.amount, is_approval: t.is_approval === true })),
    valid_duration_seconds: asString(row.valid_duration_seconds),
    valid_start_timestamp: formatTimestamp(row.valid_start_ns),
  };
}
