/** Transactions and the rows that hang off them. */
import { encodeEntityId } from '../domain/entityId.js';
import { encodeCustomFeeLimit, type CustomFeeLimitInput } from '../domain/protobuf.js';
import { bool, byteaText, bytes, entityIdRequired, SetupError, int, intOrNull, isMissing, json, type SetupRow } from './values.js';
import type { SetupRows } from './rows.js';

/** The reference loader's hash of a transaction given without one. */
const DEFAULT_TRANSACTION_HASH = Buffer.from(Array.from({ length: 48 }, (_, i) => i + 1));

export function maxCustomFees(rows: SetupRows, limits: unknown): Buffer[] {
  if (!Array.isArray(limits)) return [];
  const sub = (v: unknown, numKey: string) => {
    const o = (v ?? {}) as SetupRow;
    return { shard: rows.system.shard, realm: rows.system.realm, num: isMissing(o[numKey]) ? 0n : int(o[numKey]) };
  };
  return limits.map((limit: SetupRow) => {
    const input: CustomFeeLimitInput = {
      account: sub(limit.accountId, 'accountNum'),
      fees: ((limit.fees as SetupRow[] | undefined) ?? []).map((fee) => {
        const token = fee.denominatingTokenId as SetupRow | undefined;
        const hasToken = token !== undefined && token !== null && Object.keys(token).length > 0;
        return { amount: isMissing(fee.amount) ? 0n : int(fee.amount), ...(hasToken ? { token: sub(token, 'tokenNum') } : {}) };
      }),
    };
    return Buffer.from(encodeCustomFeeLimit(input));
  });
}

export function transaction(rows: SetupRows, fixture: SetupRow): void {
  if (isMissing(fixture.consensus_timestamp)) throw new SetupError('transactions.consensus_timestamp is required');
  const consensusTimestamp = int(fixture.consensus_timestamp, 'consensus_timestamp');
  const payer = entityIdRequired(fixture.payerAccountId, rows.system, 'transactions.payerAccountId');
  const chargedTxFee = isMissing(fixture.charged_tx_fee) ? 7n : int(fixture.charged_tx_fee);
  const nodeAccount = rows.id(fixture.nodeAccountId);
  const transactionHash = fixture.transaction_hash === undefined ? DEFAULT_TRANSACTION_HASH : bytes(fixture.transaction_hash);
  const nftTransfers = fixture.nft_transfer;
  const innerTransactions = fixture.inner_transactions;

  rows.add('transaction', {
    batch_key: bytes(fixture.batch_key),
    charged_tx_fee: chargedTxFee,
    consensus_timestamp: consensusTimestamp,
    entity_id: rows.id(fixture.entity_id),
    high_volume: bool(fixture.high_volume, false) ?? false,
    high_volume_pricing_multiplier: isMissing(fixture.high_volume_pricing_multiplier) ? 1n : int(fixture.high_volume_pricing_multiplier),
    index: isMissing(fixture.index) ? 1 : Number(fixture.index),
    inner_transactions: Array.isArray(innerTransactions) ? innerTransactions.map((v, i) => (i % 2 === 0 ? rows.id(v) : int(v))) : null,
    max_custom_fees: maxCustomFees(rows, fixture.max_custom_fees),
    max_fee: isMissing(fixture.max_fee) ? 33n : int(fixture.max_fee),
    nft_transfer: Array.isArray(nftTransfers)
      ? json(
          nftTransfers.map((t: SetupRow) => ({
            receiver_account_id: rows.id(t.receiver_account_id),
            sender_account_id: rows.id(t.sender_account_id),
            token_id: rows.id(t.token_id),
            serial_number: isMissing(t.serial_number) ? null : int(t.serial_number),
            is_approval: t.is_approval ?? null,
          })),
        )
      : null,
    node_account_id: nodeAccount,
    nonce: isMissing(fixture.nonce) ? 0 : Number(fixture.nonce),
    parent_consensus_timestamp: intOrNull(fixture.parent_consensus_timestamp),
    payer_account_id: payer,
    result: isMissing(fixture.result) ? 22 : Number(fixture.result),
    scheduled: bool(fixture.scheduled, false) ?? false,
    transaction_bytes: fixture.transaction_bytes === undefined ? byteaText('bytes') : byteaText(fixture.transaction_bytes),
    transaction_hash: transactionHash,
    type: isMissing(fixture.type) ? 14 : Number(fixture.type),
    valid_duration_seconds: isMissing(fixture.valid_duration_seconds) ? 11n : int(fixture.valid_duration_seconds),
    valid_start_ns: isMissing(fixture.valid_start_timestamp) ? consensusTimestamp - 1n : int(fixture.valid_start_timestamp),
  });

  if (transactionHash) {
    rows.add('transaction_hash', {
      consensus_timestamp: consensusTimestamp,
      hash: transactionHash.subarray(0, 32),
      hash_suffix: transactionHash.length > 32 ? transactionHash.subarray(32) : null,
      payer_account_id: payer,
    });
  }

  const transfers = (fixture.transfers as SetupRow[] | undefined) ?? [];
  if (transfers.length === 0 && chargedTxFee > 0n) {
    const node = nodeAccount ?? encodeEntityId(rows.system.shard, rows.system.realm, 3n);
    const feeAccount = encodeEntityId(rows.system.shard, rows.system.realm, 98n);
    for (const [account, amount] of [
      [node, 2n],
      [feeAccount, 1n],
      [payer, -3n],
    ] as const) {
      rows.add('crypto_transfer', {
        amount,
        consensus_timestamp: consensusTimestamp,
        entity_id: account,
        is_approval: false,
        payer_account_id: payer,
      });
    }
  }
  for (const t of transfers) {
    rows.add('crypto_transfer', {
      amount: int(t.amount, 'transfers.amount'),
      consensus_timestamp: consensusTimestamp,
      entity_id: entityIdRequired(t.account, rows.system, 'transfers.account'),
      is_approval: isMissing(t.is_approval) ? null : Boolean(t.is_approval),
      payer_account_id: payer,
    });
  }
  for (const t of (fixture.token_transfer_list as SetupRow[] | undefined) ?? []) {
    rows.add('token_transfer', {
      account_id: entityIdRequired(t.account, rows.system, 'token_transfer_list.account'),
      amount: int(t.amount, 'token_transfer_list.amount'),
      consensus_timestamp: consensusTimestamp,
      is_approval: isMissing(t.is_approval) ? null : Boolean(t.is_approval),
      payer_account_id: payer,
      token_id: entityIdRequired(t.token_id, rows.system, 'token_transfer_list.token_id'),
    });
  }
}

export function cryptoTransfer(rows: SetupRows, fixture: SetupRow): void {
  const t: SetupRow = { ...fixture };
  t.senderAccountId ??= t.payerAccountId;
  t.payerAccountId ??= t.senderAccountId;
  const amount = isMissing(t.amount) ? 2n : int(t.amount);
  t.recipientAccountId ??= t.nodeAccountId;
  if (t.transfers === undefined) {
    t.transfers = [
      { account: t.senderAccountId, amount: -(1n + amount), is_approval: false },
      { account: t.recipientAccountId, amount, is_approval: false },
      { account: t.treasuryAccountId, amount: 1n, is_approval: false },
    ];
  }
  transaction(rows, t);
}

export function entityTransaction(rows: SetupRows, fixture: SetupRow): void {
  rows.add('entity_transaction', {
    consensus_timestamp: int(fixture.consensus_timestamp, 'entityTransactions.consensus_timestamp'),
    entity_id: entityIdRequired(fixture.entity_id, rows.system, 'entityTransactions.entity_id'),
    payer_account_id: entityIdRequired(fixture.payer_account_id, rows.system, 'entityTransactions.payer_account_id'),
    result: Number(fixture.result),
    type: Number(fixture.type),
  });
}

export function stakingRewardTransfer(rows: SetupRows, fixture: SetupRow): void {
  rows.add('staking_reward_transfer', {
    account_id: fixture.account_id ? rows.id(fixture.account_id) : encodeEntityId(rows.system.shard, rows.system.realm, 1001n),
    amount: isMissing(fixture.amount) ? 100n : int(fixture.amount),
    consensus_timestamp: int(fixture.consensus_timestamp, 'stakingRewardTransfers.consensus_timestamp'),
    payer_account_id: fixture.payer_account_id
      ? rows.id(fixture.payer_account_id)
      : encodeEntityId(rows.system.shard, rows.system.realm, 950n),
  });
}

export function transactionHash(rows: SetupRows, fixture: SetupRow): void {
  const hash = bytes(fixture.hash) ?? Buffer.alloc(0);
  rows.add('transaction_hash', {
    consensus_timestamp: int(fixture.consensus_timestamp),
    hash: hash.subarray(0, 32),
    hash_suffix: hash.length > 32 ? hash.subarray(32) : null,
    payer_account_id: rows.id(fixture.payer_account_id),
  });
}
