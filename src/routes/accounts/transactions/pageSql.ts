/**
 * The SELECT that turns a `candidate` CTE (consensus_timestamp, payer_account_id) into the page:
 * the transaction rows whose payer is among the candidates' payers, each with its hbar, token and
 * staking reward transfers aggregated into arrays, so that one statement returns the whole page.
 * Byte columns come back as base64 text, rendered by the database rather than per row in Node.
 */
import { arraysOf, selectList } from '../../../db/statements.js';
import type { Order } from '../../../http/params.js';

export interface PageRow {
  consensus_timestamp: bigint;
  payer_account_id: bigint;
  batch_key: Uint8Array | null;
  bytes: string | null;
  charged_tx_fee: bigint | null;
  entity_id: bigint | null;
  high_volume: boolean | null;
  high_volume_pricing_multiplier: bigint | null;
  max_custom_fees: Uint8Array[] | null;
  max_fee: string | null;
  memo_base64: string | null;
  nft_transfer: unknown;
  node_account_id: bigint | null;
  nonce: number;
  parent_consensus_timestamp: bigint | null;
  result: number;
  scheduled: boolean;
  transaction_hash: string | null;
  type: number;
  valid_duration_seconds: string | null;
  valid_start_ns: bigint;
  /** hbar transfers of the transaction (same timestamp and payer), by account then amount; null when none */
  transfer_accounts: (bigint | null)[] | null;
  transfer_amounts: (bigint | null)[] | null;
  transfer_approvals: (boolean | null)[] | null;
  /** token transfers, by token then account; null when none */
  token_ids: (bigint | null)[] | null;
  token_accounts: (bigint | null)[] | null;
  token_amounts: (bigint | null)[] | null;
  token_approvals: (boolean | null)[] | null;
  /** staking reward payouts at the timestamp in storage order, only when the staking reward account pays */
  reward_accounts: (bigint | null)[] | null;
  reward_amounts: (bigint | null)[] | null;
}

/** Base64 of a bytea column without the line breaks PostgreSQL inserts every 76 characters. */
const base64 = (column: string) => `translate(encode(${column}, 'base64'), E'\\n', '')`;

/** Arrays named by the keys of `columns`, of their expressions over `rows` (`from …`) in `order`. */
const arrays = (columns: Record<string, string>, rows: string, order: string) =>
  arraysOf(`select ${selectList(columns)} ${rows} order by ${order}`, Object.keys(columns));

/**
 * `select … from candidate …` for a statement that defines `candidate`; `stakingRewardAccount` is
 * the placeholder of the 0.0.800 id. Ties of the transfer orders are broken by storage position, so
 * that the arrays of one transaction line up.
 */
export function pageSelect(order: Order, stakingRewardAccount: string): string {
  return `select t.consensus_timestamp, t.payer_account_id, t.batch_key, ${base64('t.transaction_bytes')} as bytes,
    t.charged_tx_fee, t.entity_id, t.high_volume, t.high_volume_pricing_multiplier, t.max_custom_fees, t.max_fee::text as max_fee,
    ${base64('t.memo')} as memo_base64, t.nft_transfer, t.node_account_id, t.nonce, t.parent_consensus_timestamp, t.result,
    t.scheduled, ${base64('t.transaction_hash')} as transaction_hash, t.type, t.valid_duration_seconds::text as valid_duration_seconds,
    t.valid_start_ns, ct.transfer_accounts, ct.transfer_amounts, ct.transfer_approvals,
    tt.token_ids, tt.token_accounts, tt.token_amounts, tt.token_approvals, sr.reward_accounts, sr.reward_amounts
  from candidate c
  join transaction t on t.consensus_timestamp = c.consensus_timestamp
  left join lateral (${arrays(
    { transfer_accounts: 'x.entity_id', transfer_amounts: 'x.amount', transfer_approvals: 'x.is_approval' },
    `from crypto_transfer x where x.consensus_timestamp = t.consensus_timestamp and x.payer_account_id = t.payer_account_id`,
    'x.entity_id, x.amount, x.ctid',
  )}) ct on true
  left join lateral (${arrays(
    { token_ids: 'x.token_id', token_accounts: 'x.account_id', token_amounts: 'x.amount', token_approvals: 'x.is_approval' },
    `from token_transfer x where x.consensus_timestamp = t.consensus_timestamp and x.payer_account_id = t.payer_account_id`,
    'x.token_id, x.account_id, x.ctid',
  )}) tt on true
  left join lateral (${arrays(
    { reward_accounts: 'x.account_id', reward_amounts: 'x.amount' },
    `from staking_reward_transfer x where x.consensus_timestamp = t.consensus_timestamp and ${stakingRewardAccount}::bigint = any (ct.transfer_accounts)`,
    'x.ctid',
  )}) sr on true
  where t.payer_account_id in (select payer_account_id from candidate)
  order by t.consensus_timestamp ${order}`;
}
