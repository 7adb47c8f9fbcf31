import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { demoSetup } from '../../src/demo/ledger.js';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { get, useHarness } from '../support/harness.js';
import { OpenApiValidator } from '../support/openapi.js';

type Rows = Record<string, any>[];

describe('responses of every endpoint match the OpenAPI document', () => {
  const harness = useHarness();
  const validator = new OpenApiValidator();
  const setup = demoSetup();
  const accounts = setup.accounts as Rows;
  const nfts = setup.nfts as Rows;
  const results = setup.contractresults as Rows;
  const ethereum = setup.ethereumtransactions as Rows;
  const transactions = setup.transactions as Rows;
  const blocks = setup.recordFiles as Rows;
  const ecdsa = accounts.find((a) => a.evm_address)!;
  const withAlias = accounts.find((a) => a.alias)!;
  const contractTx = transactions.find((t) => t.consensus_timestamp === results[0]!.consensus_timestamp)!;
  const validStart = BigInt(contractTx.consensus_timestamp) - 1n;

  const urls: [string, number][] = [
    ['/api/v1/accounts/0.0.1001', 200],
    ['/api/v1/accounts/1002?limit=3&order=asc', 200],
    [`/api/v1/accounts/${withAlias.alias}`, 200],
    [`/api/v1/accounts/0x${ecdsa.evm_address}?transactions=false`, 200],
    [`/api/v1/accounts/0.0.1003?timestamp=lte:${formatTimestamp(BigInt(blocks[10]!.consensus_end))}`, 200],
    ['/api/v1/accounts/0.0.999999', 404],
    ['/api/v1/accounts/0.0.1001?limit=0', 400],
    [`/api/v1/accounts/${nfts[0]!.account_id}/nfts`, 200],
    [`/api/v1/accounts/${nfts[0]!.account_id}/nfts?token.id=gte:0.0.1&order=asc&limit=2`, 200],
    ['/api/v1/accounts/0.0.1001/nfts?serialnumber=1', 400],
    ['/api/v1/blocks?limit=3', 200],
    ['/api/v1/blocks?block.number=ne:1', 400],
    [`/api/v1/blocks/${blocks[3]!.index}`, 200],
    [`/api/v1/blocks/0x${blocks[3]!.hash}`, 200],
    ['/api/v1/blocks/99999', 404],
    ['/api/v1/blocks/xyz', 400],
    [
      `/api/v1/contracts/results/0.0.${contractTx.payerAccountId.split('.')[2]}-${validStart / 1_000_000_000n}-${String(validStart % 1_000_000_000n).padStart(9, '0')}`,
      200,
    ],
    [`/api/v1/contracts/results/${ethereum[0]!.hash}`, 200],
    [`/api/v1/contracts/results/${ethereum[0]!.hash}?hbar=false`, 200],
    ['/api/v1/contracts/results/0x' + 'ab'.repeat(32), 404],
    ['/api/v1/contracts/results/nope', 400],
    [`/api/v1/contracts/0.0.6001/results/${formatTimestamp(BigInt(results[0]!.consensus_timestamp))}`, 200],
    ['/api/v1/contracts/0.0.6001/results/1.000000001', 404],
    ['/api/v1/contracts/0.0.6001/results/abc', 400],
    ['/api/v1/nothing', 404],
  ];

  it('documents every status and every body the endpoints send', async () => {
    await harness().prepare(setup);
    const problems: string[] = [];
    for (const [url, status] of urls) {
      const res = await get(harness(), url);
      if (res.status !== status) problems.push(`${url}: status ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`);
      if (url === '/api/v1/nothing') continue;
      problems.push(...validator.check(url, res.status, String(res.headers['content-type']), res.text).map((p) => `${url}: ${p}`));
    }
    assert.deepEqual(problems, []);
  });

  it('rejects a body that does not match (the validator is not vacuous)', () => {
    assert.notDeepEqual(
      validator.check('/api/v1/blocks', 200, 'application/json', '{"blocks":[{"number":"x"}],"links":{"next":null}}'),
      [],
    );
    assert.notDeepEqual(validator.check('/api/v1/blocks/1', 418, 'application/json', '{}'), []);
  });
});
