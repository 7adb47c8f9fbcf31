/** GET /api/v1/accounts/{id}: every field of a listed transaction. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { accountTransactionPages, ED25519, HASH, ns, ts } from '../support/accountTransactions.js';
import { useHarness } from '../support/harness.js';

describe('account transactions: fields', () => {
  const harness = useHarness();
  const { list } = accountTransactionPages(harness);

  it('renders every field of a transaction', async () => {
    const h = harness();
    await h.prepare({
      accounts: [{ num: 8 }, { num: 9 }],
      transactions: [
        {
          consensus_timestamp: ns(1),
          valid_start_timestamp: ns(1) - 5n,
          payerAccountId: '0.0.8',
          nodeAccountId: '0.0.3',
          entity_id: '0.0.9',
          type: 14,
          result: 22,
          charged_tx_fee: 99,
          max_fee: 5000,
          valid_duration_seconds: 120,
          scheduled: true,
          high_volume: true,
          high_volume_pricing_multiplier: 4,
          batch_key: '1220' + ED25519,
          transaction_hash: HASH.toString('hex'),
          transaction_bytes: 'abc',
          max_custom_fees: [
            { accountId: { accountNum: 10 }, fees: [{ amount: 100, denominatingTokenId: { tokenNum: 5001 } }, { amount: 7 }] },
          ],
          nft_transfer: [
            { receiver_account_id: '0.0.9', sender_account_id: '0.0.8', serial_number: 3, token_id: '0.0.6001', is_approval: true },
            { receiver_account_id: '0.0.8', sender_account_id: null, serial_number: 4, token_id: '0.0.6001' },
          ],
          transfers: [
            { account: '0.0.9', amount: 5, is_approval: true },
            { account: '0.0.8', amount: -1 },
            { account: '0.0.8', amount: -5 },
          ],
          token_transfer_list: [
            { token_id: '0.0.5002', account: '0.0.9', amount: 3 },
            { token_id: '0.0.5001', account: '0.0.9', amount: 2 },
            { token_id: '0.0.5001', account: '0.0.8', amount: -2, is_approval: true },
            { token_id: '0.0.5002', account: '0.0.8', amount: -3 },
          ],
        },
        {
          consensus_timestamp: ns(2),
          payerAccountId: '0.0.800',
          transfers: [
            { account: '0.0.800', amount: -50 },
            { account: '0.0.8', amount: 50 },
          ],
        },
        {
          consensus_timestamp: ns(3),
          payerAccountId: '0.0.9',
          type: 999,
          result: 11,
          transfers: [
            { account: '0.0.9', amount: -1 },
            { account: '0.0.8', amount: 1 },
          ],
        },
        { consensus_timestamp: ns(4), payerAccountId: '0.0.8', nonce: 2, parent_consensus_timestamp: ns(1) },
      ],
      stakingRewardTransfers: [
        { consensus_timestamp: ns(2), account_id: '0.0.9', amount: 20 },
        { consensus_timestamp: ns(2), account_id: '0.0.8', amount: 30 },
        { consensus_timestamp: ns(3), account_id: '0.0.8', amount: 40 },
      ],
    });
    await h.db.query(`update transaction set memo = 'memo'::bytea where consensus_timestamp = $1`, [ns(1)]);
    await h.db.query(
      `update transaction set max_fee = null, valid_duration_seconds = null, transaction_hash = null, transaction_bytes = null,
         charged_tx_fee = null, node_account_id = null where consensus_timestamp = $1`,
      [ns(4)],
    );

    const res = await list('order=asc');
    const [first, second, third, fourth] = res.body.transactions;
    assert.deepEqual(first, {
      batch_key: { _type: 'ED25519', key: ED25519 },
      bytes: 'YWJj',
      charged_tx_fee: 99,
      consensus_timestamp: ts(1),
      entity_id: '0.0.9',
      high_volume: true,
      high_volume_pricing_multiplier: 4,
      max_custom_fees: [
        { account_id: '0.0.10', amount: 100, denominating_token_id: '0.0.5001' },
        { account_id: '0.0.10', amount: 7, denominating_token_id: null },
      ],
      max_fee: '5000',
      memo_base64: 'bWVtbw==',
      name: 'CRYPTOTRANSFER',
      nft_transfers: [
        { is_approval: true, receiver_account_id: '0.0.9', sender_account_id: '0.0.8', serial_number: 3, token_id: '0.0.6001' },
        { is_approval: false, receiver_account_id: '0.0.8', sender_account_id: null, serial_number: 4, token_id: '0.0.6001' },
      ],
      node: '0.0.3',
      nonce: 0,
      parent_consensus_timestamp: null,
      result: 'SUCCESS',
      scheduled: true,
      staking_reward_transfers: [],
      token_transfers: [
        { token_id: '0.0.5001', account: '0.0.8', amount: -2, is_approval: true },
        { token_id: '0.0.5001', account: '0.0.9', amount: 2, is_approval: false },
        { token_id: '0.0.5002', account: '0.0.8', amount: -3, is_approval: false },
        { token_id: '0.0.5002', account: '0.0.9', amount: 3, is_approval: false },
      ],
      transaction_hash: HASH.toString('base64'),
      transaction_id: '0.0.8-1650000000-999999995',
      transfers: [
        { account: '0.0.8', amount: -5, is_approval: false },
        { account: '0.0.8', amount: -1, is_approval: false },
        { account: '0.0.9', amount: 5, is_approval: true },
      ],
      valid_duration_seconds: '120',
      valid_start_timestamp: formatTimestamp(ns(1) - 5n),
    });
    assert.deepEqual(second.staking_reward_transfers, [
      { account: '0.0.9', amount: 20 },
      { account: '0.0.8', amount: 30 },
    ]);
    assert.deepEqual(third.staking_reward_transfers, [], 'rewards only where 0.0.800 pays');
    assert.equal(third.name, 'UNKNOWN');
    assert.equal(third.result, 'DUPLICATE_TRANSACTION');
    assert.equal(third.batch_key, null);
    assert.deepEqual(third.max_custom_fees, []);
    assert.deepEqual(third.nft_transfers, []);
    assert.equal(third.memo_base64, null);
    assert.equal(fourth.nonce, 2);
    assert.equal(fourth.parent_consensus_timestamp, ts(1));
    for (const field of ['max_fee', 'valid_duration_seconds', 'transaction_hash', 'bytes', 'charged_tx_fee', 'node']) {
      assert.equal(fourth[field], null, field);
    }
  });
});
