/** GET /api/v1/contracts/results/{transactionIdOrHash}: the full result view and the fields taken from the Ethereum transaction. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EXPECTED_ETH_RESULT, HASH, TX_ID, longZero, pad64, setup, url } from '../support/contractResultById.js';
import { get, useHarness } from '../support/harness.js';

describe('contract result by transaction id or hash: Ethereum fields', () => {
  const harness = useHarness();

  it('renders the full result of an Ethereum transaction for every id and hash form', async () => {
    await harness().prepare(setup());
    for (const id of [TX_ID, HASH, '0x' + HASH, HASH.toUpperCase(), '0x' + HASH.toUpperCase()]) {
      const res = await get(harness(), url(id));
      assert.equal(res.status, 200, id);
      assert.equal(res.headers['cache-control'], 'public, max-age=600');
      assert.deepEqual(res.body, EXPECTED_ETH_RESULT, id);
    }
  });

  it('renders a result without an Ethereum transaction with the non-Ethereum defaults', async () => {
    await harness().prepare(setup({ eth: null }));
    const res = await get(harness(), url(TX_ID));
    assert.equal(res.status, 200);
    const { authorization_list: _, ...withoutAuthorizationList } = EXPECTED_ETH_RESULT;
    assert.deepEqual(res.body, {
      ...withoutAuthorizationList,
      access_list: [],
      amount: 30,
      chain_id: '0x128',
      function_parameters: '0x0707',
      gas_limit: 2000,
      gas_price: null,
      max_fee_per_gas: null,
      max_priority_fee_per_gas: null,
      nonce: null,
      r: null,
      s: null,
      type: 0,
      v: null,
    });
    assert.equal((await get(harness(), url(TX_ID, '?hbar=false'))).body.amount, 300_000_000_000);
  });

  it('ignores an Ethereum transaction without a transaction row of the same payer and time', async () => {
    await harness().prepare(setup({ eth: { payer_account_id: 9999 } }));
    let body = (await get(harness(), url(HASH))).body;
    assert.equal(body.nonce, null);
    assert.equal(body.chain_id, '0x128');
    await harness().prepare(setup({ extra: { transactions: [] } }));
    body = (await get(harness(), url(HASH))).body;
    assert.equal(body.nonce, null);
    assert.equal(body.type, 0);
  });

  it('uses the configured chain id and omits authorization_list when delegation addresses are off', async () => {
    await harness().prepare(setup({ eth: null }), { network: { chainId: '0x12a' } });
    assert.equal((await get(harness(), url(TX_ID))).body.chain_id, '0x12a');
    await harness().prepare(setup({ eth: { authorization_list: [{ nonce: 1 }] } }), { response: { enableDelegationAddress: false } });
    assert.equal('authorization_list' in (await get(harness(), url(TX_ID))).body, false);
  });

  it('returns access and authorization lists verbatim, even with integers beyond 2^53', async () => {
    const accessList = [{ address: '0xa02457e5dfd32bda5fc7e1f1b008aa5979568150', storage_keys: [pad64('81')] }];
    const authorizationList = [{ chain_id: '0x127', nonce: 5, y_parity: '0x1' }, { nonce: 12345678901234567890n }];
    await harness().prepare(setup({ eth: { access_list: accessList, authorization_list: authorizationList } }));
    const res = await get(harness(), url(TX_ID));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.access_list, accessList);
    assert.deepEqual(res.body.authorization_list[0], authorizationList[0]);
    assert.match(res.text, /"nonce":12345678901234567\d{3}/);
  });

  it('converts Ethereum amounts and gas prices to tinybars unless hbar=false', async () => {
    const eth = {
      chain_id: '0x012a',
      gas_price: '0x00ad78ebc5ac620000',
      max_fee_per_gas: '0xCF38224400',
      max_priority_fee_per_gas: '0x00',
      value: '0x0001158e460913d00000',
    };
    await harness().prepare(setup({ eth }));
    for (const query of ['', '?hbar=true', '?hbar=TRUE', '?HBAR=True']) {
      const body = (await get(harness(), url(TX_ID, query))).body;
      assert.deepEqual(
        [body.amount, body.gas_price, body.max_fee_per_gas, body.max_priority_fee_per_gas, body.chain_id],
        [2_000_000_000, '0x4a817c80', '0x59', '0x0', '0x12a'],
        query,
      );
    }
    for (const query of ['?hbar=false', '?Hbar=FALSE']) {
      const body = (await get(harness(), url(TX_ID, query))).body;
      assert.deepEqual(
        [body.amount, body.gas_price, body.max_fee_per_gas, body.max_priority_fee_per_gas, body.chain_id],
        [20_000_000_000_000_000_000n, '0x0ad78ebc5ac620000', '0xcf38224400', '0x0', '0x12a'],
        query,
      );
    }
  });

  it('reads the value as a signed integer in tinybars, truncating toward zero', async () => {
    // -15 000 000 001 weibars in two's complement
    const negative = '0x' + (2n ** 64n - 15_000_000_001n).toString(16);
    await harness().prepare(setup({ eth: { value: negative } }));
    assert.equal((await get(harness(), url(TX_ID))).body.amount, -1);
    assert.equal((await get(harness(), url(TX_ID, '?hbar=false'))).body.amount, 2n ** 64n - 15_000_000_001n);
  });

  it('renders amount null for a NULL or empty value and v null for an empty legacy signature_v, where the reference fails', async () => {
    for (const value of [null, []]) {
      await harness().prepare(setup({ eth: { value } }));
      for (const query of ['?hbar=true', '?hbar=false']) {
        const res = await get(harness(), url(TX_ID, query));
        assert.equal(res.status, 200, `${JSON.stringify(value)} ${query}`);
        assert.equal(res.body.amount, null);
      }
    }
    await harness().prepare(setup({ eth: { type: 0, signature_v: [] } }));
    const res = await get(harness(), url(TX_ID, '?hbar=false'));
    assert.equal(res.status, 200);
    assert.equal(res.body.v, null);
    assert.equal(res.body.type, 0);
  });

  it('takes v from a legacy signature_v, else from the recovery id', async () => {
    await harness().prepare(setup({ eth: { type: 0, signature_v: '0x0274', recovery_id: 1 } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, 628);
    await harness().prepare(setup({ eth: { type: 0, signature_v: null, recovery_id: 0 } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, 0);
    await harness().prepare(setup({ eth: { type: 2, signature_v: '0x1b', recovery_id: null } }));
    assert.equal((await get(harness(), url(TX_ID))).body.v, null);
  });

  it('overrides to with a non-empty to_address of the Ethereum transaction', async () => {
    await harness().prepare(setup({ eth: { to_address: '0x47e8474502a5466f0d47d30ca5c98659cdb92fb1' } }));
    assert.equal((await get(harness(), url(TX_ID))).body.to, '0x47e8474502a5466f0d47d30ca5c98659cdb92fb1');
    for (const toAddress of [null, []]) {
      await harness().prepare(setup({ eth: { to_address: toAddress } }));
      assert.equal((await get(harness(), url(TX_ID))).body.to, longZero(5001));
    }
  });
});
