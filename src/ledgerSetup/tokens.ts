/** Tokens, their accounts and NFTs. */
import { bool, byteaText, bytes, int, isHistoryRange, isMissing, range, type SetupRow } from './values.js';
import { merged, type SetupRows } from './rows.js';

export function tokenAccount(rows: SetupRows, fixture: SetupRow): void {
  const createdTimestamp = isMissing(fixture.created_timestamp) ? 0n : int(fixture.created_timestamp);
  const timestampRange = range(fixture.timestamp_range, `[${createdTimestamp},)`);
  rows.add(isHistoryRange(timestampRange) ? 'token_account_history' : 'token_account', {
    account_id: rows.id(fixture.account_id),
    associated: bool(fixture.associated, true),
    automatic_association: bool(fixture.automatic_association, false),
    balance: isMissing(fixture.balance) ? 0n : int(fixture.balance),
    balance_timestamp: isMissing(fixture.balance_timestamp) ? 0n : int(fixture.balance_timestamp),
    created_timestamp: createdTimestamp,
    freeze_status: isMissing(fixture.freeze_status) ? null : Number(fixture.freeze_status),
    kyc_status: isMissing(fixture.kyc_status) ? null : Number(fixture.kyc_status),
    timestamp_range: timestampRange,
    token_id: rows.id(fixture.token_id),
  });
}

export function token(rows: SetupRows, fixture: SetupRow): void {
  const t = merged(
    {
      created_timestamp: 0,
      decimals: 1000,
      initial_supply: 1000000,
      total_supply: 1000000,
      max_supply: 9223372036854775807n,
      name: 'Token name',
      symbol: 'YBTJBOAZ',
      treasury_account_id: '0.0.98',
      token_id: '0.0.0',
      type: 'FUNGIBLE_COMMON',
      supply_type: 'INFINITE',
      pause_status: 'NOT_APPLICABLE',
      freeze_default: false,
      freeze_status: 0,
      kyc_status: 0,
    },
    fixture,
  );
  if (t.type === 'NON_FUNGIBLE_UNIQUE') {
    t.decimals = 0;
    t.initial_supply = 0;
  }
  const createdTimestamp = int(t.created_timestamp);
  const timestampRange = range(t.timestamp_range, `[${createdTimestamp},)`);
  const tokenId = rows.id(t.token_id);
  rows.add(isHistoryRange(timestampRange) ? 'token_history' : 'token', {
    created_timestamp: createdTimestamp,
    decimals: int(t.decimals),
    fee_schedule_key: bytes(t.fee_schedule_key),
    freeze_default: bool(t.freeze_default, false),
    freeze_key: bytes(t.freeze_key),
    freeze_status: Number(t.freeze_status),
    initial_supply: int(t.initial_supply),
    kyc_key: bytes(t.kyc_key),
    kyc_status: Number(t.kyc_status),
    max_supply: int(t.max_supply),
    metadata: isMissing(t.metadata) ? Buffer.alloc(0) : bytes(t.metadata),
    metadata_key: bytes(t.metadata_key),
    name: String(t.name),
    pause_key: bytes(t.pause_key),
    pause_status: String(t.pause_status),
    supply_key: bytes(t.supply_key),
    supply_type: String(t.supply_type),
    symbol: String(t.symbol),
    timestamp_range: timestampRange,
    token_id: tokenId,
    total_supply: int(t.total_supply),
    treasury_account_id: rows.id(t.treasury_account_id),
    type: String(t.type),
    wipe_key: bytes(t.wipe_key),
  });
  if (!isHistoryRange(timestampRange)) {
    rows.add('custom_fee', {
      entity_id: tokenId,
      fixed_fees: null,
      fractional_fees: null,
      royalty_fees: null,
      timestamp_range: `[${createdTimestamp},)`,
    });
  }
}

export function nft(rows: SetupRows, fixture: SetupRow): void {
  const n = merged(
    { account_id: '0.0.0', created_timestamp: 0, deleted: false, metadata: '\\x', serial_number: 0, token_id: '0.0.0' },
    fixture,
  );
  const createdTimestamp = int(n.created_timestamp);
  const timestampRange = range(n.timestamp_range, `[${createdTimestamp},)`);
  rows.add(isHistoryRange(timestampRange) ? 'nft_history' : 'nft', {
    account_id: rows.id(n.account_id),
    created_timestamp: createdTimestamp,
    delegating_spender: rows.id(n.delegating_spender),
    deleted: bool(n.deleted, false),
    metadata: byteaText(n.metadata),
    serial_number: int(n.serial_number),
    spender: rows.id(n.spender),
    timestamp_range: timestampRange,
    token_id: rows.id(n.token_id),
  });
}
