/** Accounts, contracts and other entities, their balances and staking. */
import { encodeEntityId } from '../domain/entityId.js';
import {
  alias,
  bool,
  bytes,
  entityIdRequired,
  int,
  intOrNull,
  isHistoryRange,
  isMissing,
  keyBytes,
  range,
  type SetupRow,
} from './values.js';
import { merged, type SetupRows } from './rows.js';

export function entity(rows: SetupRows, fixture: SetupRow, kind: 'accounts' | 'entities' | 'contracts'): void {
  const common: SetupRow = {
    shard: rows.system.shard,
    realm: rows.system.realm,
    type: 'ACCOUNT',
    memo: 'entity memo',
    public_key: null,
    max_automatic_token_associations: null,
    receiver_sig_required: false,
    staked_node_id: -1,
    stake_period_start: -1,
    decline_reward: false,
    deleted: false,
    timestamp_range: '[0,)',
  };
  const specific: Record<typeof kind, SetupRow> = {
    accounts: { public_key: '4a5ad514f0957fa170a676210c9bdbddf3bc9519702cf915fa6767a40463b96f', max_automatic_token_associations: 0 },
    entities: {},
    contracts: { type: 'CONTRACT', memo: 'contract memo', max_automatic_token_associations: 0, receiver_sig_required: null },
  };
  const e = merged({ ...common, ...specific[kind] }, fixture);
  const shard = int(e.shard, 'shard');
  const realm = int(e.realm, 'realm');
  const num = !isMissing(e.num) ? int(e.num, 'num') : !isMissing(e.id) ? int(e.id, 'id') : 0n;
  const id = encodeEntityId(shard, realm, num);
  const timestampRange = range(e.timestamp_range, '[0,)');
  rows.add(isHistoryRange(timestampRange) ? 'entity_history' : 'entity', {
    alias: alias(e.alias),
    auto_renew_account_id: rows.id(e.auto_renew_account_id),
    auto_renew_period: intOrNull(e.auto_renew_period),
    balance: intOrNull(e.balance),
    balance_timestamp: intOrNull(e.balance_timestamp),
    created_timestamp: intOrNull(e.created_timestamp),
    decline_reward: bool(e.decline_reward, false),
    deleted: bool(e.deleted, false),
    delegation_address: bytes(e.delegation_address),
    ethereum_nonce: intOrNull(e.ethereum_nonce),
    evm_address: bytes(e.evm_address),
    expiration_timestamp: intOrNull(e.expiration_timestamp),
    id,
    key: keyBytes(e.key),
    max_automatic_token_associations: isMissing(e.max_automatic_token_associations) ? null : Number(e.max_automatic_token_associations),
    memo: String(e.memo ?? ''),
    num,
    obtainer_id: rows.id(e.obtainer_id),
    permanent_removal: bool(e.permanent_removal, null),
    proxy_account_id: rows.id(e.proxy_account_id),
    public_key: isMissing(e.public_key) ? null : String(e.public_key),
    realm,
    receiver_sig_required: bool(e.receiver_sig_required, null),
    shard,
    stake_period_start: intOrNull(e.stake_period_start),
    staked_account_id: rows.id(e.staked_account_id),
    staked_node_id: intOrNull(e.staked_node_id),
    timestamp_range: timestampRange,
    type: String(e.type),
  });
  if (kind === 'contracts' && !isHistoryRange(timestampRange)) {
    rows.add('contract', {
      file_id: rows.id(e.file_id),
      id,
      initcode: bytes(e.initcode),
      runtime_bytecode: bytes(e.runtime_bytecode),
    });
  }
}

export function balance(rows: SetupRows, fixture: SetupRow): void {
  const timestamp = isMissing(fixture.timestamp) ? 0n : int(fixture.timestamp, 'balances.timestamp');
  const accountId = entityIdRequired(fixture.id, rows.system, 'balances.id');
  rows.add('account_balance', {
    account_id: accountId,
    balance: isMissing(fixture.balance) ? 0n : int(fixture.balance),
    consensus_timestamp: timestamp,
  });
  for (const token of (fixture.tokens as SetupRow[] | undefined) ?? []) {
    rows.add('token_balance', {
      account_id: accountId,
      balance: isMissing(token.balance) ? 0n : int(token.balance),
      consensus_timestamp: timestamp,
      token_id: entityIdRequired(token.token_num, rows.system, 'balances.tokens.token_num'),
    });
  }
}

export function tokenBalance(rows: SetupRows, fixture: SetupRow): void {
  const t = merged({ consensus_timestamp: 0, account_id: '0.0.0', balance: 0, token_id: '0.0.0' }, fixture);
  rows.add('token_balance', {
    account_id: rows.id(t.account_id),
    balance: int(t.balance),
    consensus_timestamp: int(t.consensus_timestamp),
    token_id: rows.id(t.token_id),
  });
}

export function entityStake(rows: SetupRows, fixture: SetupRow): void {
  const endStakePeriod = isMissing(fixture.end_stake_period) ? 1n : int(fixture.end_stake_period);
  const timestampRange = range(fixture.timestamp_range, `[${(endStakePeriod + 1n) * 86_400_000_000_000n + 1n},)`);
  rows.add(isHistoryRange(timestampRange) ? 'entity_stake_history' : 'entity_stake', {
    end_stake_period: endStakePeriod,
    id: entityIdRequired(fixture.id, rows.system, 'entityStakes.id'),
    pending_reward: isMissing(fixture.pending_reward) ? 0n : int(fixture.pending_reward),
    staked_node_id_start: isMissing(fixture.staked_node_id_start) ? 1n : int(fixture.staked_node_id_start),
    staked_to_me: isMissing(fixture.staked_to_me) ? 0n : int(fixture.staked_to_me),
    stake_total_start: isMissing(fixture.stake_total_start) ? 0n : int(fixture.stake_total_start),
    timestamp_range: timestampRange,
  });
}
