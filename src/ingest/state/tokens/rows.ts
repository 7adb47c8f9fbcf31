/** The rows of `token`, `token_account` and `nft` as the token applier holds them, and their keys. */
import type { Versioned } from './versioned.js';

export interface TokenRow extends Versioned {
  token_id: bigint;
  created_timestamp: bigint;
  decimals: bigint;
  fee_schedule_key: Buffer | Uint8Array | null;
  freeze_default: boolean;
  freeze_key: Buffer | Uint8Array | null;
  freeze_status: number;
  initial_supply: bigint;
  kyc_key: Buffer | Uint8Array | null;
  kyc_status: number;
  max_supply: bigint;
  metadata: Buffer | Uint8Array | null;
  metadata_key: Buffer | Uint8Array | null;
  name: string;
  pause_key: Buffer | Uint8Array | null;
  pause_status: string;
  supply_key: Buffer | Uint8Array | null;
  supply_type: string;
  symbol: string;
  total_supply: bigint;
  treasury_account_id: bigint;
  type: string;
  wipe_key: Buffer | Uint8Array | null;
}

export interface TokenAccountRow extends Versioned {
  account_id: bigint;
  token_id: bigint;
  associated: boolean;
  automatic_association: boolean | null;
  balance: bigint;
  balance_timestamp: bigint | null;
  created_timestamp: bigint | null;
  freeze_status: number | null;
  kyc_status: number | null;
}

export interface NftRow extends Versioned {
  token_id: bigint;
  serial_number: bigint;
  account_id: bigint | null;
  created_timestamp: bigint | null;
  deleted: boolean | null;
  delegating_spender: bigint | null;
  metadata: Buffer | Uint8Array | null;
  spender: bigint | null;
}

export const tokenKey = (tokenId: bigint) => String(tokenId);
export const tokenAccountKey = (accountId: bigint, tokenId: bigint) => `${accountId}/${tokenId}`;
export const nftKey = (tokenId: bigint, serial: bigint) => `${tokenId}/${serial}`;

/** token_account.freeze_status / token.freeze_status */
export const FREEZE = { NOT_APPLICABLE: 0, FROZEN: 1, UNFROZEN: 2 } as const;
/** token_account.kyc_status / token.kyc_status */
export const KYC = { NOT_APPLICABLE: 0, GRANTED: 1, REVOKED: 2 } as const;
