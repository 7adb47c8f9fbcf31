import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, get, useHarness } from '../support/harness.js';

const ALIAS = 'KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL72HMQ';
const EVM = 'ebb9a1be370150759408cd7af48e9eda2b8ead57';
const SPENDER_EVM = '71c4a6a1f6a3cf8b1a1e1f0d3a0e9c5b2d4f6a8c';
const DELETED_EVM = 'ef'.repeat(20);
const OWNER_LONG_ZERO = '0x00000000000000000000000000000000000003e9';

/** Owner 0.0.1001 (alias, EVM address) with NFTs of tokens 1500 (live), 2500 (no entity) and 3500 (deleted). */
function setup() {
  return {
    accounts: [
      { num: 1001, alias: ALIAS, evm_address: EVM },
      { num: 2001 },
      { num: 4001, evm_address: SPENDER_EVM },
      { num: 4002, evm_address: DELETED_EVM, deleted: true },
    ],
    entities: [
      { num: 1500, type: 'TOKEN' },
      { num: 3500, type: 'TOKEN', deleted: true },
    ],
    nfts: [
      {
        account_id: '0.0.1001',
        token_id: '0.0.1500',
        serial_number: 1,
        created_timestamp: '1234567890000000001',
        metadata: 'm1',
        spender: '0.0.4001',
        delegating_spender: '0.0.5',
      },
      {
        account_id: '0.0.1001',
        token_id: '0.0.1500',
        serial_number: 2,
        created_timestamp: '1234567890000000002',
        metadata: 'm2',
        deleted: true,
      },
      {
        account_id: '0.0.1001',
        token_id: '0.0.1500',
        serial_number: 3,
        created_timestamp: '1234567890000000003',
        metadata: 'm3',
        spender: '0.0.4002',
      },
      { account_id: '0.0.2001', token_id: '0.0.1500', serial_number: 4, created_timestamp: '1234567890000000004', metadata: 'x' },
      {
        account_id: '0.0.1001',
        token_id: '0.0.2500',
        serial_number: 1,
        created_timestamp: '1234567890000000005',
        metadata: 's1',
        spender: '0.0.4003',
        timestamp_range: '[1234567890000000009,)',
      },
      { account_id: '0.0.1001', token_id: '0.0.3500', serial_number: 7, created_timestamp: '1234567890000000006', metadata: 'd7' },
    ],
  };
}

type Nft = { token_id: string; serial_number: number };
const keysOf = (body: { nfts: Nft[] }) => body.nfts.map((n) => `${n.token_id}/${n.serial_number}`);

describe('account NFTs', () => {
  const harness = useHarness();
  const keys = async (url: string) => {
    const res = await get(harness(), url);
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    return keysOf(res.body);
  };

  it('renders every field and marks NFTs of deleted tokens deleted', async () => {
    await harness().prepare(setup());
    const res = await get(harness(), '/api/v1/accounts/0.0.1001/nfts');
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=1');
    assert.equal(res.headers.link, undefined);
    assert.deepEqual(res.body, {
      nfts: [
        {
          account_id: '0.0.1001',
          created_timestamp: '1234567890.000000006',
          delegating_spender: null,
          deleted: true,
          metadata: 'ZDc=',
          modified_timestamp: '1234567890.000000006',
          serial_number: 7,
          spender: null,
          token_id: '0.0.3500',
        },
        {
          account_id: '0.0.1001',
          created_timestamp: '1234567890.000000005',
          delegating_spender: null,
          deleted: false,
          metadata: 'czE=',
          modified_timestamp: '1234567890.000000009',
          serial_number: 1,
          spender: '0.0.4003',
          token_id: '0.0.2500',
        },
        {
          account_id: '0.0.1001',
          created_timestamp: '1234567890.000000003',
          delegating_spender: null,
          deleted: false,
          metadata: 'bTM=',
          modified_timestamp: '1234567890.000000003',
          serial_number: 3,
          spender: '0.0.4002',
          token_id: '0.0.1500',
        },
        {
          account_id: '0.0.1001',
          created_timestamp: '1234567890.000000002',
          delegating_spender: null,
          deleted: true,
          metadata: 'bTI=',
          modified_timestamp: '1234567890.000000002',
          serial_number: 2,
          spender: null,
          token_id: '0.0.1500',
        },
        {
          account_id: '0.0.1001',
          created_timestamp: '1234567890.000000001',
          delegating_spender: '0.0.5',
          deleted: false,
          metadata: 'bTE=',
          modified_timestamp: '1234567890.000000001',
          serial_number: 1,
          spender: '0.0.4001',
          token_id: '0.0.1500',
        },
      ],
      links: { next: null },
    });
  });

  it('renders NULL columns as null, an empty metadata as "" and int64 serials exactly', async () => {
    await harness().prepare({
      nfts: [{ account_id: '0.0.1001', token_id: '0.0.1500', serial_number: '9223372036854775807', metadata: '\\x' }],
    });
    await harness().db.exec('update nft set deleted = null, created_timestamp = null');
    const res = await get(harness(), '/api/v1/accounts/1001/nfts');
    assert.equal(res.status, 200);
    assert.match(res.text, /"serial_number":9223372036854775807/);
    const [nft] = res.body.nfts;
    assert.equal(nft.metadata, '');
    assert.equal(nft.created_timestamp, null);
    assert.equal(nft.deleted, null, 'NULL deleted OR a live token stays NULL, as in the reference');
    await harness().db.exec('update nft set metadata = null');
    assert.equal((await get(harness(), '/api/v1/accounts/1001/nfts')).body.nfts[0].metadata, null);
  });

  it('resolves every form of the path value', async () => {
    await harness().prepare(setup());
    const expected = await keys('/api/v1/accounts/0.0.1001/nfts');
    assert.equal(expected.length, 5);
    for (const path of [
      '1001',
      '0.1001',
      '0.0.1001',
      OWNER_LONG_ZERO,
      ALIAS,
      `0.${ALIAS}`,
      `0.0.${ALIAS}`,
      EVM,
      `0x${EVM}`,
      `0.0.${EVM}`,
      EVM.toUpperCase(),
    ]) {
      const queries = await harness().captureQueries(async () =>
        assert.deepEqual(await keys(`/api/v1/accounts/${path}/nfts`), expected, path),
      );
      assert.equal(queries.length, 1, `${path}: the owner is resolved within the page's statement`);
    }
  });

  it('answers an empty list for an unknown numeric owner and 404 for an unknown alias or EVM address', async () => {
    await harness().prepare(setup());
    for (const path of ['9999', '0.0.9999', '0x00000000000000000000000000000000000fffff']) {
      const res = await get(harness(), `/api/v1/accounts/${path}/nfts`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.body, { nfts: [], links: { next: null } });
    }
    const alias = await get(harness(), '/api/v1/accounts/AAAQEAYEAUDAOCAJ/nfts');
    assert.equal(alias.status, 404);
    assert.deepEqual(alias.body, errorOf('No account with a matching alias found'));
    for (const path of ['0x' + 'ab'.repeat(20), DELETED_EVM]) {
      const res = await get(harness(), `/api/v1/accounts/${path}/nfts`);
      assert.equal(res.status, 404, `${path} (unknown, or deleted entity)`);
      assert.deepEqual(res.body, errorOf('Not found'));
    }
  });

  it('rejects a malformed path value before looking at the query', async () => {
    for (const path of [
      'x',
      '0.x',
      '0.0.x',
      '1.2.3.4',
      '0.0.-1',
      '1024.0.1',
      '0.1.' + ALIAS,
      'KGNABD5L3ZGSRVUCSPDR7TONZSRY3D5OMEBKQMVTD2AC6JL',
      '12345678901234567890',
      '0x' + 'ab'.repeat(19),
    ]) {
      const res = await get(harness(), `/api/v1/accounts/${path}/nfts?limit=0&foo=1`);
      assert.equal(res.status, 400, path);
      assert.deepEqual(res.body, errorOf('Invalid parameter: idOrAliasOrEvmAddress'), path);
    }
    await harness().prepare({});
    const unknownAlias = await get(harness(), '/api/v1/accounts/AAAQEAYEAUDAOCAJ/nfts?limit=0');
    assert.equal(unknownAlias.status, 404, 'the owner is resolved before the parameters are validated');
    for (const query of ['serialnumber=1', `spender.id=${'cd'.repeat(20)}`, `spender.id=lt:${'cd'.repeat(20)}`]) {
      const res = await get(harness(), `/api/v1/accounts/0x${'ab'.repeat(20)}/nfts?${query}`);
      assert.equal(res.status, 404, query);
      assert.deepEqual(res.body, errorOf('Not found'), `${query}: the unknown owner comes first`);
    }
  });

  it('filters by token id with every supported operator', async () => {
    await harness().prepare(setup());
    const base = '/api/v1/accounts/0.0.1001/nfts?order=asc&';
    assert.deepEqual(await keys(base + 'token.id=1500'), ['0.0.1500/1', '0.0.1500/2', '0.0.1500/3']);
    assert.deepEqual(await keys(base + 'token.id=eq:0.0.2500'), ['0.0.2500/1']);
    assert.deepEqual(
      await keys(base + 'token.id=0x00000000000000000000000000000000000009c4'),
      ['0.0.2500/1'],
      'a long-zero address is a plain id',
    );
    assert.deepEqual(await keys(base + 'token.id=gt:1500'), ['0.0.2500/1', '0.0.3500/7']);
    assert.deepEqual(await keys(base + 'token.id=gte:2500'), ['0.0.2500/1', '0.0.3500/7']);
    assert.deepEqual(await keys(base + 'token.id=lt:2500'), ['0.0.1500/1', '0.0.1500/2', '0.0.1500/3']);
    assert.deepEqual(await keys(base + 'token.id=lte:0.2500'), ['0.0.1500/1', '0.0.1500/2', '0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(await keys(base + 'token.id=gt:1500&token.id=lt:3500'), ['0.0.2500/1']);
    assert.deepEqual(await keys(base + 'token.id=9'), []);
  });

  it('filters by serial number within a token', async () => {
    await harness().prepare(setup());
    const base = '/api/v1/accounts/0.0.1001/nfts?order=asc&token.id=1500&';
    assert.deepEqual(await keys(base + 'serialnumber=2'), ['0.0.1500/2']);
    assert.deepEqual(await keys(base + 'serialnumber=eq:3'), ['0.0.1500/3']);
    assert.deepEqual(await keys(base + 'serialnumber=gt:1'), ['0.0.1500/2', '0.0.1500/3']);
    assert.deepEqual(await keys(base + 'serialnumber=gte:3'), ['0.0.1500/3']);
    assert.deepEqual(await keys(base + 'serialnumber=lt:2'), ['0.0.1500/1']);
    assert.deepEqual(await keys(base + 'serialnumber=lte:2'), ['0.0.1500/1', '0.0.1500/2']);
    assert.deepEqual(await keys(base + 'serialnumber=gt:1&serialnumber=lt:3'), ['0.0.1500/2']);
    assert.deepEqual(await keys(base + 'serialnumber=gt:3'), []);
    assert.deepEqual(
      await keys('/api/v1/accounts/0.0.1001/nfts?token.id=gt:1500&serialnumber=7'),
      ['0.0.3500/7'],
      'serial eq with a token range',
    );
  });

  it('reads a token range with serial bounds as a range over (token, serial)', async () => {
    await harness().prepare(setup());
    const base = '/api/v1/accounts/0.0.1001/nfts?order=asc&';
    assert.deepEqual(await keys(base + 'token.id=gte:1500&serialnumber=gt:2'), ['0.0.1500/3', '0.0.2500/1', '0.0.3500/7']);
    assert.deepEqual(await keys(base + 'token.id=lte:2500&serialnumber=lt:2'), ['0.0.1500/1', '0.0.1500/2', '0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(await keys(base + 'token.id=lte:3500&serialnumber=lte:6'), ['0.0.1500/1', '0.0.1500/2', '0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(await keys(base + 'token.id=gte:1500&token.id=lte:3500&serialnumber=gte:2&serialnumber=lt:7'), [
      '0.0.1500/2',
      '0.0.1500/3',
      '0.0.2500/1',
    ]);
    assert.deepEqual(await keys(base + 'token.id=gte:1500&token.id=lt:3500&serialnumber=gte:3'), ['0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(
      await keys(base + 'token.id=gte:1500&token.id=lte:1500&serialnumber=gt:1&serialnumber=lte:2'),
      ['0.0.1500/2'],
      'both edges on one token',
    );
  });

  it('filters by spender with eq values as alternatives and range bounds', async () => {
    await harness().prepare(setup());
    const base = '/api/v1/accounts/0.0.1001/nfts?order=asc&';
    assert.deepEqual(await keys(base + 'spender.id=4001'), ['0.0.1500/1']);
    assert.deepEqual(await keys(base + 'spender.id=eq:0.0.4002&spender.id=4003&spender.id=7'), ['0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(await keys(base + 'spender.id=gt:4001'), ['0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(await keys(base + 'spender.id=gte:4002&spender.id=lt:4003'), ['0.0.1500/3']);
    assert.deepEqual(await keys(base + 'spender.id=lte:4002'), ['0.0.1500/1', '0.0.1500/3']);
    assert.deepEqual(await keys(base + 'spender.id=4001&spender.id=4003&spender.id=gt:4001'), ['0.0.2500/1'], 'IN list and range together');
    assert.deepEqual(await keys(base + 'spender.id=4002&token.id=1500&serialnumber=gte:2'), ['0.0.1500/3']);
    assert.deepEqual(
      await keys(base + 'spender.id=0x0000000000000000000000000000000000000fa3'),
      ['0.0.2500/1'],
      'a long-zero address is a plain id',
    );
  });

  it('resolves an opaque spender EVM address through a live entity, else matches nothing', async () => {
    await harness().prepare(setup());
    const base = '/api/v1/accounts/0.0.1001/nfts?order=asc&';
    assert.deepEqual(await keys(base + `spender.id=${SPENDER_EVM}`), ['0.0.1500/1']);
    assert.deepEqual(await keys(base + `spender.id=0x${SPENDER_EVM.toUpperCase()}&spender.id=4003`), ['0.0.1500/1', '0.0.2500/1']);
    assert.deepEqual(await keys(base + `spender.id=gt:0.0.${SPENDER_EVM}`), ['0.0.1500/3', '0.0.2500/1']);
    assert.deepEqual(
      await keys(base + `spender.id=${'cd'.repeat(20)}&spender.id=4003`),
      ['0.0.2500/1'],
      'an unknown address drops out of the IN list',
    );
    assert.deepEqual(await keys(base + `spender.id=${'cd'.repeat(20)}`), []);
    assert.deepEqual(await keys(base + `spender.id=lt:${'cd'.repeat(20)}`), []);
    await harness().db.exec(`update entity set deleted = true where num = 4001`);
    assert.deepEqual(await keys(base + `spender.id=${SPENDER_EVM}`), [], 'a deleted entity does not resolve');
  });

  it('orders by token then serial, descending by default', async () => {
    await harness().prepare(setup());
    const desc = await keys('/api/v1/accounts/0.0.1001/nfts');
    assert.deepEqual(desc, ['0.0.3500/7', '0.0.2500/1', '0.0.1500/3', '0.0.1500/2', '0.0.1500/1']);
    assert.deepEqual(await keys('/api/v1/accounts/0.0.1001/nfts?order=desc'), desc);
    assert.deepEqual(await keys('/api/v1/accounts/0.0.1001/nfts?order=ASC'), [...desc].reverse());
    assert.deepEqual(await keys('/api/v1/accounts/0.0.1001/nfts?order=desc&order=asc'), [...desc].reverse(), 'the last order wins');
  });

  it('caps the limit at response.limit.max and keeps the requested text in the link', async () => {
    await harness().prepare(setup(), { response: { limit: { max: 2 } } });
    const res = await get(harness(), '/api/v1/accounts/0.0.1001/nfts?limit=50');
    assert.deepEqual(keysOf(res.body), ['0.0.3500/7', '0.0.2500/1']);
    assert.equal(res.body.links.next, '/api/v1/accounts/0.0.1001/nfts?limit=50&token.id=lte:0.0.2500&serialnumber=lt:1');
    assert.equal(res.headers.link, `<${res.body.links.next}>; rel="next"`);
    const fallback = await get(harness(), '/api/v1/accounts/0.0.1001/nfts');
    assert.equal(fallback.body.nfts.length, 5, 'like the reference, the cap applies to a given limit, not to the default');
  });

  it("uses the configured default limit; a spec case's is ignored, as the reference reads it at start-up", async () => {
    const nfts = Array.from({ length: 30 }, (_, i) => ({ account_id: '0.0.1001', token_id: '0.0.1500', serial_number: i + 1 }));
    await harness().prepare({ nfts }, { response: { limit: { default: 2 } } });
    const res = await get(harness(), '/api/v1/accounts/1001/nfts');
    assert.equal(res.body.nfts.length, 25);
    assert.equal(res.body.links.next, '/api/v1/accounts/1001/nfts?token.id=lte:0.0.1500&serialnumber=lt:6');
    await harness().configure({ response: { limit: { default: 2 } } });
    assert.equal((await get(harness(), '/api/v1/accounts/1001/nfts')).body.nfts.length, 2);
  });

  it('builds next links like the reference', async () => {
    const nfts = [1000, 1500, 2000, 2500].flatMap((token) =>
      [1, 2, 3, 4, 5].map((serial) => ({ account_id: '0.0.1001', token_id: `0.0.${token}`, serial_number: serial })),
    );
    await harness().prepare({ nfts });
    const path = '/api/v1/accounts/0.0.1001/nfts';
    const link = async (qs: string) => {
      const res = await get(harness(), `${path}?${qs}`);
      assert.equal(res.headers.link, res.body.links.next === null ? undefined : `<${res.body.links.next}>; rel="next"`);
      return res.body.links.next;
    };
    assert.equal(
      await link('token.id=gte:1000&token.id=lte:2500&serialnumber=gt:3&serialnumber=lt:5&limit=2&order=asc'),
      `${path}?token.id=lte:2500&token.id=gte:0.0.1000&serialnumber=lt:5&serialnumber=gt:5&limit=2&order=asc`,
    );
    assert.equal(await link('limit=2&order=asc'), `${path}?limit=2&order=asc&token.id=gte:0.0.1000&serialnumber=gt:2`);
    assert.equal(await link('limit=3&token.id=lte:2500'), `${path}?limit=3&token.id=lte:0.0.2500&serialnumber=lt:3`);
    assert.equal(await link('token.id=1500&limit=2'), `${path}?token.id=1500&limit=2&serialnumber=lt:4`, 'an eq token is not carried on');
    assert.equal(
      await link('token.id=1500&serialnumber=gt:2&limit=2&order=asc'),
      `${path}?token.id=1500&limit=2&order=asc&serialnumber=gt:4`,
    );
    assert.equal(
      await link('token.id=gt:1000&serialnumber=3&limit=2'),
      `${path}?token.id=gt:1000&token.id=lt:0.0.2000&serialnumber=3&limit=2`,
      'exclusive token with an eq serial',
    );
    assert.equal(await link('token.id=gt:1499&serialnumber=3&limit=3'), null, 'the continuation token range is empty');
    assert.equal(await link('token.id=1500&serialnumber=gt:3&limit=2'), null, 'the continuation serial range is empty');
    assert.equal(await link('token.id=1500&serialnumber=3&limit=1'), null, 'a single NFT');
    assert.equal(await link('limit=2&spender.id=gte:1'), null, 'no NFT has a spender');
    assert.equal(await link('limit=21'), null, 'a page shorter than the limit is the last');
    assert.equal(await link('limit=20'), `${path}?limit=20&token.id=lte:0.0.1000&serialnumber=lt:1`, 'a full last page still links on');
  });
});
