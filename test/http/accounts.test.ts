import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base32Encode } from '../../src/domain/base32.js';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { errorOf, get, useHarness } from '../support/harness.js';

const ALIAS = 'KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL72HMQ';
const EVM = 'ac384c53f03855fa1b3616052f8ba32c6c2a2fec';
const ED25519 = '60beee88a4c4a0f5a9d5ad8e6b17ac5ce0d54f5bd5e3cd2eb0dae0bfb1a2b5b7';
const EVM_ALIAS_BYTES = '0102030405060708091011121314151617181920';
const DAY_NS = 86_400_000_000_000n;

/** Account 0.0.1001 with every field set, and a few others for the fallbacks and the lookups. */
function setup() {
  return {
    accounts: [
      {
        num: 1001,
        alias: ALIAS,
        evm_address: EVM,
        key: '1220' + ED25519,
        balance: 123_456_789_012_345_678n,
        balance_timestamp: '1700000000000000001',
        created_timestamp: '1600000000000000002',
        auto_renew_period: 7_776_000,
        expiration_timestamp: '1800000000000000003',
        ethereum_nonce: 9,
        memo: 'the memo',
        max_automatic_token_associations: 10,
        receiver_sig_required: true,
        staked_account_id: '0.0.1002',
        staked_node_id: 3,
        stake_period_start: 19_000,
        delegation_address: 'ab'.repeat(20),
        timestamp_range: '[1600000000000000002,)',
      },
      // no evm_address, 20-byte alias; expiry computed from created + auto renew period; deleted
      {
        num: 1002,
        alias: base32Encode(Buffer.from(EVM_ALIAS_BYTES, 'hex')),
        created_timestamp: '1000000000000000000',
        auto_renew_period: 100,
        deleted: true,
        delegation_address: '00'.repeat(20),
      },
      // neither: long-zero address, no expiry
      { num: 1003, created_timestamp: '1000000000000000000', staked_node_id: 2, stake_period_start: -1, decline_reward: true },
      { num: 2, memo: 'Mirror node created synthetic treasury account' },
    ],
    contracts: [{ num: 1004 }],
    entities: [{ num: 1005, type: 'TOKEN' }],
    entityStakes: [
      { id: 1001, pending_reward: 77, end_stake_period: 19_001 },
      { id: 1003, pending_reward: 55, end_stake_period: 19_001 },
    ],
    tokenaccounts: [
      { account_id: '0.0.1001', token_id: '0.0.5003', balance: 3 },
      { account_id: '0.0.1001', token_id: '0.0.5001', balance: 1 },
      { account_id: '0.0.1001', token_id: '0.0.5002', balance: 2, associated: false },
      { account_id: '0.0.1001', token_id: '0.0.5004', balance: 4 },
    ],
  };
}

describe('account', () => {
  const harness = useHarness();

  it('renders every field of the current account', async () => {
    await harness().prepare(setup());
    const res = await get(harness(), '/api/v1/accounts/0.0.1001');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'public, max-age=2');
    assert.equal(res.headers.link, undefined);
    assert.deepEqual(res.body, {
      account: '0.0.1001',
      alias: ALIAS,
      auto_renew_period: 7_776_000,
      balance: {
        balance: 123_456_789_012_345_678n,
        timestamp: '1700000000.000000001',
        tokens: [
          { token_id: '0.0.5001', balance: 1 },
          { token_id: '0.0.5003', balance: 3 },
          { token_id: '0.0.5004', balance: 4 },
        ],
      },
      created_timestamp: '1600000000.000000002',
      decline_reward: false,
      delegation_address: '0x' + 'ab'.repeat(20),
      deleted: false,
      ethereum_nonce: 9,
      evm_address: '0x' + EVM,
      expiry_timestamp: '1800000000.000000003',
      key: { _type: 'ED25519', key: ED25519 },
      max_automatic_token_associations: 10,
      memo: 'the memo',
      pending_reward: 77,
      receiver_sig_required: true,
      staked_account_id: '0.0.1002',
      staked_node_id: 3,
      stake_period_start: '1641600000.000000000',
      transactions: [],
      links: { next: null },
    });
  });

  it('falls back for the EVM address, the expiry and the delegation address', async () => {
    await harness().prepare(setup());
    const b = (await get(harness(), '/api/v1/accounts/1002')).body;
    assert.equal(b.evm_address, '0x' + EVM_ALIAS_BYTES, 'a 20-byte alias is the EVM address');
    assert.equal(b.expiry_timestamp, '1000000100.000000000', 'created + auto renew period (seconds)');
    assert.equal(b.delegation_address, '0x', 'the zero address means none');
    assert.equal(b.deleted, true);
    assert.deepEqual(b.balance, { balance: null, timestamp: null, tokens: [] });
    assert.equal(b.key, null);

    const c = (await get(harness(), '/api/v1/accounts/1003')).body;
    assert.equal(c.evm_address, '0x00000000000000000000000000000000000003eb', 'long-zero address');
    assert.equal(c.expiry_timestamp, null, 'no auto renew period');
    assert.equal(c.delegation_address, '0x');
    assert.equal(c.alias, null);
  });

  it('applies the staking rules', async () => {
    await harness().prepare(setup());
    const c = (await get(harness(), '/api/v1/accounts/1003')).body;
    assert.equal(c.staked_node_id, 2);
    assert.equal(c.stake_period_start, null, 'no staking period recorded');
    assert.equal(c.pending_reward, 0, 'declines rewards');
    assert.equal(c.staked_account_id, null);

    const cases: [Record<string, unknown>, Record<string, unknown> | null, number][] = [
      [{ staked_node_id: 1, stake_period_start: 19_000 }, { pending_reward: 9, end_stake_period: 19_001 }, 9],
      [{ staked_node_id: 1, stake_period_start: 19_001 }, { pending_reward: 9, end_stake_period: 19_001 }, 0],
      [{ staked_node_id: -1, stake_period_start: 19_000 }, { pending_reward: 9, end_stake_period: 19_001 }, 0],
      [{ staked_node_id: 1, stake_period_start: 19_000, decline_reward: true }, { pending_reward: 9, end_stake_period: 19_001 }, 0],
      [{ staked_node_id: 1, stake_period_start: 19_000 }, null, 0],
    ];
    for (const [account, stake, expected] of cases) {
      await harness().prepare({ accounts: [{ num: 7, ...account }], entityStakes: stake ? [{ id: 7, ...stake }] : [] });
      const body = (await get(harness(), '/api/v1/accounts/7')).body;
      assert.equal(body.pending_reward, expected, JSON.stringify({ account, stake }));
      const stakedToNode = account.staked_node_id !== -1;
      assert.equal(body.staked_node_id, stakedToNode ? 1 : null);
      assert.equal(
        body.stake_period_start,
        stakedToNode ? `${(BigInt(account.stake_period_start as number) * DAY_NS) / 1_000_000_000n}.000000000` : null,
      );
    }
  });

  it('omits the delegation address unless enabled', async () => {
    await harness().prepare(setup(), { response: { enableDelegationAddress: false } });
    const res = await get(harness(), '/api/v1/accounts/1001');
    assert.equal(res.status, 200);
    assert.equal('delegation_address' in res.body, false);
  });

  it('lists at most the configured number of token balances, always by token id ascending', async () => {
    await harness().prepare(setup());
    for (const order of ['asc', 'desc']) {
      const tokens = (await get(harness(), `/api/v1/accounts/1001?order=${order}`)).body.balance.tokens;
      assert.deepEqual(
        tokens.map((t: { token_id: string }) => t.token_id),
        ['0.0.5001', '0.0.5003', '0.0.5004'],
      );
    }
    await harness().configure({ response: { limit: { tokenBalance: { singleAccount: 2 } } } });
    const tokens = (await get(harness(), '/api/v1/accounts/1001')).body.balance.tokens;
    assert.deepEqual(tokens, [
      { token_id: '0.0.5001', balance: 1 },
      { token_id: '0.0.5003', balance: 3 },
    ]);
  });

  it('answers contracts but not other entities or the synthetic treasury', async () => {
    await harness().prepare(setup());
    const contract = await get(harness(), '/api/v1/accounts/0.0.1004');
    assert.equal(contract.status, 200);
    assert.equal(contract.body.memo, 'contract memo');
    for (const id of ['1005', '0.0.2', '0.0.999']) {
      const res = await get(harness(), `/api/v1/accounts/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
  });
});

describe('account path forms', () => {
  const harness = useHarness();

  const lookups = (): Record<string, string> => ({
    '1001': '0.0.1001',
    '0.1001': '0.0.1001',
    '0.0.1001': '0.0.1001',
    '0x00000000000000000000000000000000000003e9': '0.0.1001',
    '00000000000000000000000000000000000003E9': '0.0.1001',
    '0.0.00000000000000000000000000000000000003e9': '0.0.1001',
    [EVM]: '0.0.1001',
    ['0x' + EVM.toUpperCase()]: '0.0.1001',
    ['0.0.' + EVM]: '0.0.1001',
    ['0.' + EVM]: '0.0.1001',
    [ALIAS]: '0.0.1001',
    ['0.' + ALIAS]: '0.0.1001',
    ['0.0.' + ALIAS]: '0.0.1001',
  });

  it('resolves numeric ids, EVM addresses and aliases with their optional prefixes', async () => {
    await harness().prepare(setup());
    for (const [path, account] of Object.entries(lookups())) {
      const res = await get(harness(), `/api/v1/accounts/${path}`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.body.account, account, path);
    }
  });

  it('resolves every form within the account statement, now and as of a time, with and without transactions', async () => {
    await harness().prepare(setup());
    const expected = (await get(harness(), '/api/v1/accounts/0.0.1001?transactions=false')).body;
    const asOf = `timestamp=lte:${formatTimestamp(1_700_000_000_000_000_000n)}`;
    const historical = (await get(harness(), `/api/v1/accounts/0.0.1001?transactions=false&${asOf}`)).body;
    assert.equal(expected.account, '0.0.1001');
    assert.equal(historical.account, '0.0.1001');
    for (const path of Object.keys(lookups())) {
      for (const [query, body] of [
        ['transactions=false', expected],
        [`transactions=false&${asOf}`, historical],
      ] as const) {
        const url = `/api/v1/accounts/${path}?${query}`;
        const queries = await harness().captureQueries(async () => assert.deepEqual((await get(harness(), url)).body, body, url));
        assert.equal(queries.length, 1, `${url}: one statement`);
      }
      const res = await get(harness(), `/api/v1/accounts/${path}?${asOf}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.body.account, '0.0.1001', path);
    }
  });

  it('reports unknown and ambiguous aliases and addresses from the account statement too', async () => {
    await harness().prepare({
      accounts: [
        { num: 10, alias: ALIAS },
        { num: 11, alias: ALIAS },
      ],
    });
    for (const query of ['transactions=false', 'timestamp=lte:1700000000', 'transactions=false&timestamp=lte:1700000000']) {
      let res = await get(harness(), `/api/v1/accounts/${ALIAS}?${query}`);
      assert.equal(res.status, 500, query);
      assert.deepEqual(res.body, errorOf('Internal error'), query);
      res = await get(harness(), `/api/v1/accounts/AAAQEAYEAUDAOCAJCAIREEYUCULBOGAZ?${query}`);
      assert.equal(res.status, 404, query);
      assert.deepEqual(res.body, errorOf('No account with a matching alias found'), query);
      res = await get(harness(), `/api/v1/accounts/0x${EVM}?${query}`);
      assert.equal(res.status, 404, query);
      assert.deepEqual(res.body, errorOf('Not found'), query);
    }
  });

  it('resolves an alias or EVM address shared with deleted accounts to the live one', async () => {
    await harness().prepare({
      accounts: [
        { num: 10, alias: ALIAS, evm_address: EVM, deleted: true },
        { num: 11, alias: ALIAS, evm_address: EVM },
        { num: 12, alias: ALIAS, evm_address: EVM, deleted: true },
      ],
    });
    assert.equal((await get(harness(), `/api/v1/accounts/${ALIAS}`)).body.account, '0.0.11');
    assert.equal((await get(harness(), `/api/v1/accounts/0x${EVM}`)).body.account, '0.0.11');
  });

  it('answers 404 for unknown aliases and addresses, and for addresses of deleted accounts only', async () => {
    await harness().prepare({ accounts: [{ num: 10, alias: ALIAS, evm_address: EVM, deleted: true }] });
    let res = await get(harness(), `/api/v1/accounts/${ALIAS}`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, errorOf('No account with a matching alias found'));
    res = await get(harness(), `/api/v1/accounts/AAAQEAYEAUDAOCAJCAIREEYUCULBOGAZ`);
    assert.deepEqual(res.body, errorOf('No account with a matching alias found'));
    res = await get(harness(), `/api/v1/accounts/0x${EVM}`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, errorOf('Not found'));
    res = await get(harness(), '/api/v1/accounts/0x00000000000000000000000000000000000003e9');
    assert.equal(res.status, 404, 'a long-zero address needs no lookup, but the account must exist');
    assert.deepEqual(res.body, errorOf('Not found'));
  });

  it('answers 500 when an alias matches two live accounts', async () => {
    await harness().prepare({
      accounts: [
        { num: 10, alias: ALIAS },
        { num: 11, alias: ALIAS },
      ],
    });
    const res = await get(harness(), `/api/v1/accounts/${ALIAS}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, errorOf('Internal error'));
  });

  it('rejects malformed path values', async () => {
    await harness().prepare(setup());
    for (const path of [
      '0.5.6.7',
      'abc',
      ALIAS.toLowerCase(),
      'KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL72000',
      'A',
      '1.0.' + ALIAS,
      '0.1.' + ALIAS,
      '9.2.0000000000000000000000000000000000000013',
      '1.0.' + EVM,
      '0x' + EVM.slice(1),
      '274877906944',
      '1024.0.1',
      '0.65536.1',
      '-1',
      '0x',
      '1.2.3.4.5',
      '%20',
    ]) {
      const res = await get(harness(), `/api/v1/accounts/${path}`);
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.deepEqual(res.body, errorOf('Invalid parameter: idOrAliasOrEvmAddress'), path);
    }
  });

  it('validates the query before resolving the path value', async () => {
    await harness().prepare(setup());
    let res = await get(harness(), '/api/v1/accounts/0.5.6.7?limit=0');
    assert.deepEqual(res.body, errorOf('Invalid parameter: limit'));
    res = await get(harness(), `/api/v1/accounts/AAAQEAYEAUDAOCAJCAIREEYUCULBOGAZ?order=up`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, errorOf('Invalid parameter: order'));
  });
});

describe('account query parameters', () => {
  const harness = useHarness();

  it('rejects every malformed value and unknown key with the reference messages', async () => {
    await harness().prepare(setup());
    const cases: [string, string[]][] = [
      ['limit=0', ['Invalid parameter: limit']],
      ['limit=-1', ['Invalid parameter: limit']],
      ['limit=9223372036854775808', ['Invalid parameter: limit']],
      ['limit=ne:5', []],
      ['order=up', ['Invalid parameter: order']],
      ['timestamp=abc', ['Invalid parameter: timestamp']],
      ['timestamp=12345678901', ['Invalid parameter: timestamp']],
      ['timestamp=1.1234567890', ['Invalid parameter: timestamp']],
      ['timestamp=foo:1', ['Invalid parameter: timestamp']],
      ['transactiontype=bogus', ['Invalid parameter: transactiontype']],
      ['transactions=maybe', ['Invalid parameter: transactions']],
      ['transactions=ne:true', ['Invalid parameter: transactions']],
      ['account.id=1', ['Unknown query parameter: account.id']],
      ['foo=1&limit=abc&order=sideways', ['Invalid parameter: limit', 'Invalid parameter: order', 'Unknown query parameter: foo']],
      ['timestamp[a]=1', ['Invalid parameter: timestamp']],
      [
        'timestamp=1&timestamp=2&timestamp=3&timestamp=4&timestamp=5&TIMESTAMP=6&timestamp=7&timestamp=8&timestamp=9',
        ['Parameter values count exceeds maximum number allowed: timestamp count: 9 max: 8'],
      ],
    ];
    for (const [qs, messages] of cases) {
      const res = await get(harness(), `/api/v1/accounts/1001?${qs}`);
      if (messages.length === 0) {
        assert.equal(res.status, 200, `${qs}: ${res.text}`);
        continue;
      }
      assert.equal(res.status, 400, qs);
      assert.deepEqual(res.body, errorOf(...messages), qs);
    }
  });

  it('accepts parameter names and values in any case', async () => {
    await harness().prepare(setup());
    const res = await get(harness(), '/api/v1/accounts/1001?LIMIT=2&Order=ASC&TransactionType=CryptoTransfer&TRANSACTIONS=TRUE');
    assert.equal(res.status, 200, res.text);
  });

  it('does not fail on timestamps beyond the int64 range', async () => {
    await harness().prepare(setup());
    for (const qs of [
      'timestamp=9999999999',
      'timestamp=gt:9999999999.999999999',
      'timestamp=lte:9999999999&timestamp=ne:9999999999.1',
      'timestamp=gte:9223372036.854775807',
    ]) {
      const res = await get(harness(), `/api/v1/accounts/1001?${qs}`);
      assert.ok([200, 404].includes(res.status), `${qs}: ${res.status} ${res.text}`);
    }
    const res = await get(harness(), '/api/v1/accounts/1001?timestamp=lte:9999999999');
    assert.equal(res.status, 200);
    assert.equal(res.body.account, '0.0.1001');
  });
});

describe('account in a non-zero shard and realm', () => {
  const harness = useHarness();
  const SNAPSHOT = 1_700_000_000_000_000_000n;

  it('reads and writes ids, the treasury and the staking reward account in the configured shard and realm', async () => {
    await harness().prepare({
      config: { shard: 1, realm: 2 },
      accounts: [{ num: 2 }, { num: 8, alias: ALIAS }, { num: 800 }],
      balances: [
        { timestamp: SNAPSHOT, id: 2, balance: 1 },
        { timestamp: SNAPSHOT, id: 8, balance: 5, tokens: [{ token_num: 5001, balance: 6 }] },
      ],
      transactions: [
        {
          consensus_timestamp: SNAPSHOT + 1n,
          payerAccountId: 800,
          transfers: [
            { account: 800, amount: -3 },
            { account: 8, amount: 3 },
          ],
        },
      ],
      stakingRewardTransfers: [{ consensus_timestamp: SNAPSHOT + 1n, account_id: 8, amount: 3 }],
    });
    for (const path of [
      '8',
      '2.8',
      '1.2.8',
      '0x0000000000000000000000000000000000000008',
      '1.2.0000000000000000000000000000000000000008',
      ALIAS,
      '1.2.' + ALIAS,
    ]) {
      const res = await get(harness(), `/api/v1/accounts/${path}`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.body.account, '1.2.8', path);
    }
    assert.equal((await get(harness(), '/api/v1/accounts/0.0.8')).status, 404);
    assert.equal((await get(harness(), `/api/v1/accounts/0.0.${ALIAS}`)).status, 400);

    const res = await get(harness(), `/api/v1/accounts/8?timestamp=lte:${SNAPSHOT / 1_000_000_000n}.000000001`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.balance, { balance: 5, timestamp: '1700000000.000000000', tokens: [{ token_id: '1.2.5001', balance: 6 }] });
    const [transaction] = res.body.transactions;
    assert.equal(transaction.transaction_id, '1.2.800-1700000000-000000000');
    assert.deepEqual(transaction.staking_reward_transfers, [{ account: '1.2.8', amount: 3 }]);
  });
});
