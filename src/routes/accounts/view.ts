/** Account rows → AccountInfo objects (without `transactions` and `links`). */
import { base32Encode } from '../../domain/base32.js';
import { toHex } from '../../domain/bytes.js';
import { formatEntityId, longZeroAddress } from '../../domain/entityId.js';
import { formatKey, type KeyView } from '../../domain/key.js';
import { NANOS_PER_SECOND, formatStakingPeriod, formatTimestamp } from '../../domain/timestamp.js';
import type { AccountRow } from './queries.js';

export interface BalanceView {
  balance: bigint | null;
  timestamp: string | null;
  tokens: { token_id: string | null; balance: bigint }[];
}

/** The balance shown: from a snapshot, or else the entity version's own balance columns. */
export interface AccountBalance {
  balance: bigint | null;
  timestampNs: bigint | null;
  /** token ids and their balances, in token id order (null: none) */
  tokenIds: bigint[] | null;
  tokenBalances: bigint[] | null;
}

function tokensOf(balance: AccountBalance): BalanceView['tokens'] {
  const ids = balance.tokenIds;
  if (ids === null) return [];
  const balances = balance.tokenBalances!;
  const out: BalanceView['tokens'] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = { token_id: formatEntityId(ids[i]), balance: balances[i]! };
  return out;
}

export interface AccountView {
  account: string | null;
  alias: string | null;
  auto_renew_period: bigint | null;
  balance: BalanceView;
  created_timestamp: string | null;
  decline_reward: boolean;
  delegation_address?: string;
  deleted: boolean | null;
  ethereum_nonce: bigint | null;
  evm_address: string | null;
  expiry_timestamp: string | null;
  key: KeyView | null;
  max_automatic_token_associations: number | null;
  memo: string;
  pending_reward: bigint;
  receiver_sig_required: boolean | null;
  staked_account_id: string | null;
  staked_node_id: bigint | null;
  stake_period_start: string | null;
}

const EVM_ADDRESS_BYTES = 20;

/** The stored address; else a 20-byte alias; else the long-zero address of the num. */
function evmAddressOf(row: AccountRow): string | null {
  if (row.evm_address !== null) return toHex(row.evm_address);
  if (row.alias !== null && row.alias.length === EVM_ADDRESS_BYTES) return toHex(row.alias);
  return longZeroAddress(row.id);
}

const ZERO_ADDRESS = '0x' + '0'.repeat(40);

/** NULL, empty and the all-zero address all mean "no delegation" (`0x`). */
function delegationAddressOf(bytes: Uint8Array | null): string {
  const hex = toHex(bytes);
  return hex === ZERO_ADDRESS ? '0x' : hex;
}

function expiryOf(row: AccountRow): bigint | null {
  if (row.expiration_timestamp !== null) return row.expiration_timestamp;
  if (row.created_timestamp === null || row.auto_renew_period === null) return null;
  return row.created_timestamp + row.auto_renew_period * NANOS_PER_SECOND;
}

function isStakedToNode(row: AccountRow): boolean {
  return row.staked_node_id !== null && row.staked_node_id !== -1n;
}

/** The staking row's reward, unless it does not apply to the account's current staking settings. */
function pendingRewardOf(row: AccountRow): bigint {
  if (row.pending_reward === null || row.decline_reward === true || !isStakedToNode(row)) return 0n;
  if (row.stake_period_start !== null && row.end_stake_period !== null && row.stake_period_start >= row.end_stake_period) return 0n;
  return row.pending_reward;
}

export function accountView(row: AccountRow, balance: AccountBalance, withDelegationAddress: boolean): AccountView {
  const stakedToNode = isStakedToNode(row);
  const view: AccountView = {
    account: formatEntityId(row.id),
    alias: row.alias === null ? null : base32Encode(row.alias),
    auto_renew_period: row.auto_renew_period,
    balance: {
      balance: balance.balance,
      timestamp: formatTimestamp(balance.timestampNs),
      tokens: tokensOf(balance),
    },
    created_timestamp: formatTimestamp(row.created_timestamp),
    decline_reward: row.decline_reward,
    deleted: row.deleted,
    ethereum_nonce: row.ethereum_nonce,
    evm_address: evmAddressOf(row),
    expiry_timestamp: formatTimestamp(expiryOf(row)),
    key: formatKey(row.key),
    max_automatic_token_associations: row.max_automatic_token_associations,
    memo: row.memo,
    pending_reward: pendingRewardOf(row),
    receiver_sig_required: row.receiver_sig_required,
    staked_account_id: formatEntityId(row.staked_account_id),
    staked_node_id: stakedToNode ? row.staked_node_id : null,
    stake_period_start:
      stakedToNode && row.stake_period_start !== null && row.stake_period_start !== -1n
        ? formatStakingPeriod(row.stake_period_start)
        : null,
  };
  if (withDelegationAddress) view.delegation_address = delegationAddressOf(row.delegation_address);
  return view;
}
