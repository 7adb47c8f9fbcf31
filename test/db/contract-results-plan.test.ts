import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { get, useHarness } from '../support/harness.js';
import { sequentialScans, statementsPlannedEachTime } from '../support/plans.js';

const EXECUTIONS = 30_000;
const BASE = 1_600_000_000_000_000_000n;
const STEP = 1_000_000n;
const timestampOf = (i: number) => BASE + BigInt(i) * STEP;
const payerOf = (i: number) => 100_000 + (i % 500);
const contractOf = (i: number) => 200_000 + (i % 1000);
const hashOf = (i: number) => createHash('sha256').update(String(i)).digest('hex');
const evmOf = (contract: number) => createHash('sha256').update(`evm${contract}`).digest('hex').slice(0, 40);
const transactionIdOf = (i: number) => {
  const validStart = timestampOf(i) - 10n;
  return `0.0.${payerOf(i)}-${validStart / 1_000_000_000n}-${(validStart % 1_000_000_000n).toString().padStart(9, '0')}`;
};

const LARGE_TABLES = [
  'transaction',
  'contract_result',
  'contract_log',
  'contract_state_change',
  'contract_transaction',
  'contract_transaction_hash',
  'ethereum_transaction',
  'entity',
  'record_file',
  'file_data',
];

/**
 * Executions i = 1..N at BASE + i·STEP: every even one wrapped in an Ethereum transaction (every
 * tenth of those with its call data in a file), three logs and three state changes each, one block
 * per execution, 20 000 entities, and fee schedule / exchange rate files updated every 100 executions.
 */
const DATA = `
  insert into entity (id, num, realm, shard, type, evm_address, deleted, timestamp_range)
    select n, n, 0, 0, case when n >= 200000 then 'CONTRACT'::entity_type else 'ACCOUNT'::entity_type end,
      case when n >= 200000 then decode(substring(encode(sha256(('evm' || n)::bytea), 'hex') from 1 for 40), 'hex') end, false, '[0,)'
    from (select generate_series(100000, 100499) as n union all select generate_series(200000, 200999)
          union all select generate_series(300000, 318499)) ids;
  insert into transaction (consensus_timestamp, payer_account_id, valid_start_ns, type, result, nonce)
    select ${BASE} + i::bigint * ${STEP}, 100000 + i % 500, ${BASE} + i::bigint * ${STEP} - 10, case when i % 2 = 0 then 50 else 7 end, 22, 0
    from generate_series(1, ${EXECUTIONS}) i;
  insert into contract_result (consensus_timestamp, contract_id, payer_account_id, sender_id, function_parameters, gas_limit,
      gas_used, call_result, transaction_hash, transaction_result, transaction_index)
    select ${BASE} + i::bigint * ${STEP}, 200000 + i % 1000, 100000 + i % 500, 100000 + i % 500, case when i % 20 = 0 then '' else '\\x0102' end::bytea,
      100000, 50000, '\\x01', sha256(i::text::bytea), 22, 1
    from generate_series(1, ${EXECUTIONS}) i;
  insert into contract_transaction_hash (consensus_timestamp, entity_id, hash, payer_account_id, transaction_result)
    select consensus_timestamp, contract_id, transaction_hash, payer_account_id, 22 from contract_result;
  insert into contract_transaction (consensus_timestamp, entity_id, contract_ids, payer_account_id)
    select consensus_timestamp, e.id, array[contract_id, payer_account_id, 300000 + (consensus_timestamp / ${STEP}) % 18000], payer_account_id
    from contract_result, lateral (values (contract_id), (payer_account_id), (300000 + (consensus_timestamp / ${STEP}) % 18000)) e(id);
  insert into contract_log (consensus_timestamp, index, contract_id, payer_account_id, bloom, data, topic0)
    select cr.consensus_timestamp, x, case when x = 1 then 300000 + (cr.consensus_timestamp / ${STEP}) % 18000 else cr.contract_id end,
      cr.payer_account_id, '\\x01', '\\x02', sha256(x::text::bytea)
    from contract_result cr, generate_series(0, 2) x;
  insert into contract_state_change (consensus_timestamp, contract_id, slot, payer_account_id, value_read, value_written, migration)
    select cr.consensus_timestamp, cr.contract_id, int4send(x), cr.payer_account_id, '\\x01', '\\x02', x = 2
    from contract_result cr, generate_series(0, 2) x;
  insert into ethereum_transaction (consensus_timestamp, payer_account_id, hash, data, gas_limit, max_gas_allowance, nonce,
      signature_r, signature_s, type, call_data, call_data_id, value, gas_price)
    select ${BASE} + i::bigint * ${STEP}, 100000 + i % 500, sha256(i::text::bytea), '\\x00', 100000, 0, i, '\\x01', '\\x02', 2,
      case when i % 20 = 0 then null else '\\x0a0b'::bytea end, case when i % 20 = 0 then 400000 + i end, '\\x01', '\\x02'
    from generate_series(2, ${EXECUTIONS}, 2) i;
  insert into file_data (consensus_timestamp, entity_id, file_data, transaction_type)
    select ${BASE} + i::bigint * ${STEP} - 5, 400000 + i, '\\x0c0d'::bytea, 17 from generate_series(20, ${EXECUTIONS}, 20) i
    union all select ${BASE} + i::bigint * ${STEP} - 4, 400000 + i, '\\x0e', 16 from generate_series(20, ${EXECUTIONS}, 20) i
    union all select ${BASE} + i::bigint * ${STEP} - 3, 111, '\\x0a00', 19 from generate_series(0, ${EXECUTIONS}, 100) i
    union all select ${BASE} + i::bigint * ${STEP} - 2, 112, '\\x0a00', 19 from generate_series(0, ${EXECUTIONS}, 100) i
    union all select ${BASE} + i::bigint * ${STEP} - 1, 112, '\\xffff', 19 from generate_series(50, ${EXECUTIONS}, 100) i;
  insert into record_file (index, consensus_start, consensus_end, count, hash, prev_hash, name, gas_used, file_hash, load_start, load_end, version, digest_algorithm)
    select i, ${BASE} + i::bigint * ${STEP} - ${STEP} / 2, ${BASE} + i::bigint * ${STEP} + ${STEP} / 2 - 1, 1,
      encode(sha384(i::text::bytea), 'hex'), encode(sha384((i - 1)::text::bytea), 'hex'), 'f' || i, 0, encode(sha384(i::text::bytea), 'hex'), i, i + 1, 6, 0
    from generate_series(1, ${EXECUTIONS}) i;
  analyze;
`;

describe('contract result queries are index-backed', () => {
  const harness = useHarness();

  before(async () => {
    const h = harness();
    await h.prepare({});
    await h.db.exec(DATA);
  });

  const ethWithCallDataFile = 12_340; // even, multiple of 20
  const eth = 12_342;
  const nonEth = 12_343;
  const nonEthAfterBadRateFile = 12_351; // 112 was last updated with undecodable bytes at 12_350
  const cases: [string, string, number][] = [
    [
      'by transaction id, Ethereum, call data from a file',
      `/api/v1/contracts/results/${transactionIdOf(ethWithCallDataFile)}`,
      ethWithCallDataFile,
    ],
    ['by transaction id with nonce and hbar', `/api/v1/contracts/results/${transactionIdOf(eth)}?nonce=0&hbar=false`, eth],
    ['by transaction id, gas price from the system files', `/api/v1/contracts/results/${transactionIdOf(nonEth)}`, nonEth],
    [
      'by transaction id, gas price after an undecodable file',
      `/api/v1/contracts/results/${transactionIdOf(nonEthAfterBadRateFile)}`,
      nonEthAfterBadRateFile,
    ],
    ['by hash', `/api/v1/contracts/results/0x${hashOf(eth)}`, eth],
    ['by hash, no Ethereum transaction', `/api/v1/contracts/results/${hashOf(nonEth)}`, nonEth],
    ['by contract id and timestamp', `/api/v1/contracts/0.0.${contractOf(eth)}/results/${formatTimestamp(timestampOf(eth))}`, eth],
    ['by payer and timestamp', `/api/v1/contracts/0.0.${payerOf(nonEth)}/results/${formatTimestamp(timestampOf(nonEth))}`, nonEth],
    [
      'by EVM address and timestamp',
      `/api/v1/contracts/0x${evmOf(contractOf(nonEth))}/results/${formatTimestamp(timestampOf(nonEth))}`,
      nonEth,
    ],
  ];

  for (const [name, url, execution] of cases) {
    it(name, async () => {
      let body:
        | { timestamp: string; logs: unknown[]; state_changes: unknown[]; function_parameters: string; gas_price: string | null }
        | undefined;
      const queries = await harness().captureQueries(async () => {
        const res = await get(harness(), url);
        assert.equal(res.status, 200, url);
        body = res.body;
      });
      assert.equal(body!.timestamp, formatTimestamp(timestampOf(execution)));
      assert.equal(body!.logs.length, 3);
      assert.ok(body!.state_changes.length >= 2);
      if (execution === ethWithCallDataFile) assert.equal(body!.function_parameters, '0x0c0d0e');
      assert.ok(queries.length >= 1);
      assert.deepEqual(await sequentialScans(harness().db, queries, LARGE_TABLES), []);
      assert.deepEqual(await statementsPlannedEachTime(harness().db, queries), []);
    });
  }
});
