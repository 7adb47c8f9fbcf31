/** nft rows → NFT objects. */
import { toBase64 } from '../../domain/bytes.js';
import { formatEntityId } from '../../domain/entityId.js';
import { formatTimestamp } from '../../domain/timestamp.js';
import type { NftRow } from './queries.js';

export interface NftView {
  account_id: string | null;
  created_timestamp: string | null;
  delegating_spender: string | null;
  deleted: boolean | null;
  metadata: string | null;
  modified_timestamp: string | null;
  serial_number: bigint;
  spender: string | null;
  token_id: string | null;
}

export function nftView(row: NftRow): NftView {
  return {
    account_id: formatEntityId(row.account_id),
    created_timestamp: formatTimestamp(row.created_timestamp),
    delegating_spender: formatEntityId(row.delegating_spender),
    deleted: row.deleted,
    metadata: toBase64(row.metadata),
    modified_timestamp: formatTimestamp(row.modified_timestamp),
    serial_number: row.serial_number,
    spender: formatEntityId(row.spender),
    token_id: formatEntityId(row.token_id),
  };
}
