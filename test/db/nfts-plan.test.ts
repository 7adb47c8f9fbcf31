import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { base32Encode } from '../../src/domain/base32.js';
import { get, useHarness } from '../support/harness.js';
import { sequentialScans, statementsPlannedEachTime } from '../support/plans.js';

const NFTS = 100_000;
const ENTITIES = 20_000;
const OWNERS = 1_000;
const TOKENS = 200;
const FIRST_TOKEN = 5_001;

/** Entity i has an opaque EVM address when even and an alias (its md5) when divisible by 3. */
const evmOf = (i: number) => 'ab' + i.toString(16).padStart(38, '0');
const aliasOf = (i: number) => base32Encode(createHash('md5').update(String(i)).digest());

describe('account NFT queries are index-backed', () => {
  const harness = useHarness();

  before(async () => {
    const h = harness();
    await h.prepare({});
    await h.db.exec(`insert into entity (id, shard, realm, num, type, deleted, evm_address, alias, timestamp_range)
      select i, 0, 0, i,
        (case when i between ${FIRST_TOKEN} and ${FIRST_TOKEN + TOKENS - 1} then 'TOKEN' else 'ACCOUNT' end)::entity_type,
        i % 97 = 0,
        case when i % 2 = 0 then decode('ab' || lpad(to_hex(i), 38, '0'), 'hex') end,
        case when i % 3 = 0 then decode(md5(i::text), 'hex') end,
        int8range(i, null)
      from generate_series(1, ${ENTITIES}) as i`);
    // NFT i belongs to owner i % OWNERS + 1, which so holds 5 serials each of 20 tokens; every third NFT has a spender
    await h.db.exec(`insert into nft (account_id, token_id, serial_number, spender, delegating_spender, created_timestamp, deleted, metadata, timestamp_range)
      select i % ${OWNERS} + 1, ${FIRST_TOKEN} + (i / ${OWNERS * 5}) % ${TOKENS}, i,
        case when i % 3 = 0 then 2001 + i % 50 end, null, i, false, '\\x01', int8range(i, null)
      from generate_series(1, ${NFTS}) as i`);
    await h.db.exec('analyze entity; analyze nft');
  });

  const owner = 7;
  const urls = [
    `/api/v1/accounts/${owner}/nfts`,
    `/api/v1/accounts/${owner}/nfts?order=asc&limit=100`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&token.id=lte:5015`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&token.id=lt:5015&order=asc`,
    `/api/v1/accounts/${owner}/nfts?token.id=5007`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&token.id=lte:5015&serialnumber=gt:100&serialnumber=lt:90000`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&token.id=lte:5015&serialnumber=gt:100&serialnumber=lt:90000&order=asc`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&serialnumber=gte:3000&order=asc`,
    `/api/v1/accounts/${owner}/nfts?token.id=lte:5015&serialnumber=lte:3000`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5007&token.id=lte:5007&serialnumber=gt:1&serialnumber=lt:99999`,
    `/api/v1/accounts/${owner}/nfts?token.id=5007&serialnumber=gt:31000&serialnumber=lte:90000&order=asc`,
    `/api/v1/accounts/${owner}/nfts?token.id=5007&serialnumber=32006`,
    `/api/v1/accounts/${owner}/nfts?spender.id=2007`,
    `/api/v1/accounts/${owner}/nfts?spender.id=2007&spender.id=2016&spender.id=2025&order=asc`,
    `/api/v1/accounts/${owner}/nfts?spender.id=gte:2010&spender.id=lt:2030`,
    `/api/v1/accounts/${owner}/nfts?spender.id=gt:2010&order=asc`,
    `/api/v1/accounts/${owner}/nfts?spender.id=${evmOf(2016)}`,
    `/api/v1/accounts/${owner}/nfts?token.id=gte:5003&serialnumber=gt:10&spender.id=lte:2040&order=asc`,
    `/api/v1/accounts/0x${evmOf(owner + 1)}/nfts`,
    `/api/v1/accounts/${aliasOf(owner + 2)}/nfts?order=asc`,
  ];

  for (const url of urls) {
    it(url, async () => {
      let status = 0;
      const queries = await harness().captureQueries(async () => {
        status = (await get(harness(), url)).status;
      });
      assert.equal(status, 200);
      assert.ok(queries.length > 0);
      assert.deepEqual(await sequentialScans(harness().db, queries, ['nft', 'entity']), []);
      assert.deepEqual(await statementsPlannedEachTime(harness().db, queries), []);
    });
  }

  it('pages on index ranges too', async () => {
    const first = await get(harness(), `/api/v1/accounts/${owner}/nfts?token.id=gte:5005&serialnumber=gte:3000&limit=5`);
    assert.equal(first.body.nfts.length, 5);
    const next: string = first.body.links.next;
    assert.ok(next);
    const queries = await harness().captureQueries(async () => assert.equal((await get(harness(), next)).status, 200));
    assert.deepEqual(await sequentialScans(harness().db, queries, ['nft', 'entity']), []);
    assert.deepEqual(await statementsPlannedEachTime(harness().db, queries), []);
  });
});
