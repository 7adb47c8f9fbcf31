import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { base32Encode } from '../../src/domain/base32.js';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import type { Harness } from '../../tools/testApp/harness.js';
import { existsSync } from 'node:fs';
import { DEFAULT_ADMIN_URL, MIRROR_SCHEMA_FILE } from '../../tools/db/scratch.js';
import { get, useHarness } from '../support/harness.js';
import { postgresServerSkipReason } from '../support/privatePostgres.js';
import { rowsReadFrom, sequentialScans, sortedScansInGenericPlans } from '../support/plans.js';
import type { TransferJoin } from '../../src/routes/accounts/transactions/transferJoinPlanner.js';

const ACCOUNTS = 20_000;
const TRANSACTIONS = 100_000;
const SNAPSHOT_ACCOUNTS = 5_000;
const SNAPSHOTS = 12;
const HEAVY = 1000; // pays every 7th transaction and receives every 11th
const HEAVY_PAYS = 7 * 3000;
const T0 = 1_600_000_000_000_000_000n;
const SECOND = 1_000_000_000n;
const SNAPSHOT_EVERY = 7_200n * SECOND;
/** Hourly snapshots of HEAVY in the months before T0's (2020-09-01): a busy account's history. */
const EARLIER_SNAPSHOTS = 5_000;
const T0_MONTH_START = 1_598_918_400n * SECOND;
const ts = (i: number | bigint) => T0 + BigInt(i) * SECOND;

const LARGE = [
  'transaction',
  'crypto_transfer',
  'token_transfer',
  'entity_transaction',
  'account_balance',
  'token_balance',
  'token_account',
  'entity',
  'entity_history',
  'staking_reward_transfer',
];

const aliasOf = (num: number) => base32Encode(Buffer.from(num.toString(16).padStart(40, '0'), 'hex'));
const evmAddressOf = (num: number) => num.toString(16).padStart(40, 'f');

/**
 * The account's plans on a database the harness opens with `options`: the environment's
 * (LQS_TEST_BACKEND, LQS_TEST_SCHEMA, LQS_TEST_OPTIONAL_INDEXES), or a mirror node database as an
 * operator has it, without the optional indexes (`lqs indexes`): every page then reads in page
 * order through the mirror node's own indexes, none sorts a busy account's rows.
 */
function accountPlans(options: Parameters<typeof useHarness>[1]) {
  const harness = useHarness(undefined, options);

  before(async () => {
    const h = harness();
    await h.prepare({});
    const tx = (i: string) => `${T0} + ${i}::bigint * ${SECOND}`;
    const payer = `case when i % 7 = 0 then ${HEAVY} else 1 + i % ${SNAPSHOT_ACCOUNTS} end`;
    const receiver = `case when i % 11 = 0 then ${HEAVY} else 1 + (i * 7919) % ${ACCOUNTS} end`;
    await h.db.exec(`
      insert into entity (id, num, realm, shard, type, memo, alias, evm_address, balance, balance_timestamp, deleted,
                          staked_node_id, stake_period_start, timestamp_range)
        select i, i, 0, 0, 'ACCOUNT', '', decode(lpad(to_hex(i), 40, '0'), 'hex'), decode(lpad(to_hex(i), 40, 'f'), 'hex'),
               i * 10, ${ts(TRANSACTIONS)}, false, i % 3, 18000, int8range(${T0} + i, null)
        from generate_series(1, ${ACCOUNTS}) as i;
      insert into entity_history (id, num, realm, shard, type, memo, alias, evm_address, balance, deleted, timestamp_range)
        select i, i, 0, 0, 'ACCOUNT', 'old', decode(lpad(to_hex(i), 40, '0'), 'hex'), decode(lpad(to_hex(i), 40, 'f'), 'hex'),
               i, false, int8range(i, ${T0} + i)
        from generate_series(1, ${ACCOUNTS}) as i;
      insert into entity_stake (id, end_stake_period, pending_reward, staked_node_id_start, staked_to_me, stake_total_start, timestamp_range)
        select i, 18500, i, 1, 0, 0, int8range(${T0} + i, null) from generate_series(1, ${ACCOUNTS}) as i;
      insert into entity_stake_history (id, end_stake_period, pending_reward, staked_node_id_start, staked_to_me, stake_total_start, timestamp_range)
        select i, 18400, i, 1, 0, 0, int8range(i, ${T0} + i) from generate_series(1, ${ACCOUNTS}) as i;
      insert into token_account (account_id, token_id, associated, balance, timestamp_range)
        select a, 100000 + t, true, a * t, int8range(0, null) from generate_series(1, ${ACCOUNTS}) as a, generate_series(1, 3) as t;
      insert into account_balance (account_id, consensus_timestamp, balance)
        select a, ${T0} + s * ${SNAPSHOT_EVERY}, a * s from generate_series(1, ${SNAPSHOT_ACCOUNTS}) as a, generate_series(0, ${SNAPSHOTS - 1}) as s;
      insert into account_balance (account_id, consensus_timestamp, balance)
        select ${HEAVY}, ${T0_MONTH_START} - s::bigint * ${3_600n * SECOND}, s from generate_series(1, ${EARLIER_SNAPSHOTS}) as s;
      insert into token_balance (account_id, token_id, consensus_timestamp, balance)
        select a, 100000 + t, ${T0} + s * ${SNAPSHOT_EVERY}, a * s from generate_series(1, ${SNAPSHOT_ACCOUNTS}) as a,
               generate_series(0, ${SNAPSHOTS - 1}) as s, generate_series(1, 2) as t;
      insert into transaction (consensus_timestamp, payer_account_id, node_account_id, type, result, valid_start_ns, nonce,
                               parent_consensus_timestamp, charged_tx_fee, max_fee, valid_duration_seconds, transaction_hash,
                               transaction_bytes, nft_transfer, max_custom_fees)
        select ${tx('i')}, ${payer}, 3, case when i % 13 = 0 then 36 when i % 17 = 0 then 999 else 14 end, 22, ${tx('i')} - 1,
               case when i % 19 = 0 then 1 else 0 end, null, 7, 33, 120, sha384(i::text::bytea), 'bytes'::bytea,
               case when i % 13 = 0 then jsonb_build_array(jsonb_build_object('receiver_account_id', ${receiver},
                 'sender_account_id', ${payer}, 'serial_number', i, 'token_id', 200000, 'is_approval', false)) end,
               '{}'::bytea[]
        from generate_series(1, ${TRANSACTIONS}) as i;
      insert into crypto_transfer (entity_id, consensus_timestamp, amount, payer_account_id, is_approval)
        select e, ${tx('i')}, case e when 98 then 1 when ${payer} then -3 else 2 end, ${payer}, false
        from generate_series(1, ${TRANSACTIONS}) as i, lateral (values (${payer}), (${receiver}), (98)) as v(e);
      insert into crypto_transfer (entity_id, consensus_timestamp, amount, payer_account_id, is_approval)
        select 800, ${tx('i')}, -5, ${payer}, false from generate_series(10, ${TRANSACTIONS}, 10) as i;
      insert into staking_reward_transfer (account_id, consensus_timestamp, amount, payer_account_id)
        select ${receiver}, ${tx('i')}, 5, ${payer} from generate_series(2, ${TRANSACTIONS}, 2) as i;
      insert into token_transfer (token_id, account_id, consensus_timestamp, amount, payer_account_id, is_approval)
        select 100001, a, ${tx('i')}, case when a = ${payer} then -1 else 1 end, ${payer}, false
        from generate_series(4, ${TRANSACTIONS}, 4) as i, lateral (values (${payer}), (${receiver})) as v(a);
      insert into entity_transaction (entity_id, consensus_timestamp, payer_account_id, result, type)
        select distinct on (e, i) e, ${tx('i')}, ${payer}, 22, 14
        from generate_series(1, ${TRANSACTIONS}) as i, lateral (values (${payer}), (${receiver})) as v(e);
    `);
    // as autovacuum leaves a loaded table: statistics, and the visibility map that makes index-only scans cheap
    await h.db.exec('vacuum analyze');
  });

  const mid = formatTimestamp(ts(TRANSACTIONS / 2));
  const late = formatTimestamp(ts(TRANSACTIONS - 100));
  const bindRange = async (h: Harness) => {
    await h.configure({ query: { bindTimestampRange: true, maxTransactionsTimestampRangeNs: 3_600n * SECOND } });
    h.clock.set(ts(TRANSACTIONS + 10));
  };
  /** Transfer walks of one row, so that a merge or probes (`way`, or the costs' choice) complete the type filters. */
  const completeAfterOneRow = (join: TransferJoin | 'auto') => async (h: Harness) => {
    await h.configure({ query: { transfers: { walkLimit: 1, join } } });
  };
  const MERGE = 'join transaction t on t.consensus_timestamp = w.consensus_timestamp';
  const PROBE_BY_ACCOUNT = 'cross join lateral (select from transaction t';
  const PROBE_BY_TYPE = 'from transaction t cross join lateral (select from';
  const cases: [string, string, ((h: Harness) => Promise<void>)?, { completedBy: string }?][] = [
    ['current account, transactions desc', `/api/v1/accounts/${HEAVY}`],
    ['transactions asc', `/api/v1/accounts/0.0.${HEAVY}?order=asc&limit=100`],
    ['next page desc', `/api/v1/accounts/${HEAVY}?timestamp=lt:${mid}`],
    ['next page asc', `/api/v1/accounts/${HEAVY}?timestamp=gt:${mid}&order=asc`],
    ['with a transaction type', `/api/v1/accounts/${HEAVY}?transactiontype=cryptotransfer`],
    [
      'with a rare transaction type, unknown types',
      `/api/v1/accounts/${HEAVY}?transactiontype=tokenupdate&transactiontype=unknown&order=asc`,
    ],
    [
      'a type completed by merges',
      `/api/v1/accounts/${ACCOUNTS - 7}?transactiontype=cryptotransfer&limit=100`,
      completeAfterOneRow('merge'),
      { completedBy: MERGE },
    ],
    [
      'unknown types completed by merges',
      `/api/v1/accounts/${HEAVY}?transactiontype=unknown&transactiontype=tokenupdate&timestamp=lt:${mid}`,
      completeAfterOneRow('merge'),
      { completedBy: MERGE },
    ],
    [
      'a type completed by probes from the account',
      `/api/v1/accounts/${ACCOUNTS - 7}?transactiontype=cryptotransfer&limit=100`,
      completeAfterOneRow('probe by account'),
      { completedBy: PROBE_BY_ACCOUNT },
    ],
    [
      'a type completed by probes from the type',
      `/api/v1/accounts/${HEAVY}?transactiontype=tokenupdate&order=asc`,
      completeAfterOneRow('probe by type'),
      { completedBy: PROBE_BY_TYPE },
    ],
    [
      'a type completed the cheapest way',
      `/api/v1/accounts/${HEAVY}?transactiontype=cryptotransfer&timestamp=lt:${mid}`,
      completeAfterOneRow('auto'),
      { completedBy: 'select count(*)::int as n from' },
    ],
    ['historical: upper bound with a snapshot', `/api/v1/accounts/${HEAVY}?timestamp=lte:${mid}`],
    ['historical: closed range', `/api/v1/accounts/${HEAVY}?timestamp=gte:${mid}&timestamp=lt:${late}&order=asc`],
    ['historical: one timestamp', `/api/v1/accounts/${HEAVY}?timestamp=${formatTimestamp(ts(HEAVY_PAYS))}`],
    ['historical: ne', `/api/v1/accounts/${HEAVY}?timestamp=ne:${mid}&timestamp=gt:${formatTimestamp(T0)}`],
    ['alias', `/api/v1/accounts/${aliasOf(HEAVY)}`],
    ['EVM address', `/api/v1/accounts/0x${evmAddressOf(HEAVY)}`],
    ['a light account', `/api/v1/accounts/${ACCOUNTS - 7}?limit=100`],
    ['the fee collector 0.0.98', `/api/v1/accounts/98?limit=50`],
    ['bindTimestampRange desc', `/api/v1/accounts/${HEAVY}?timestamp=gt:${formatTimestamp(T0)}`, bindRange],
    ['bindTimestampRange without bounds, asc', `/api/v1/accounts/${HEAVY}?order=asc`, bindRange],
  ];

  for (const [name, url, configure, expect] of cases) {
    it(`${name}: ${url}`, async () => {
      const h = harness();
      await h.resetConfig();
      h.clock.set(null);
      await configure?.(h);
      const queries = await h.captureQueries(async () => {
        const res = await get(h, url);
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.transactions.length > 0, 'the case lists transactions');
      });
      assert.ok(queries.length > 0);
      if (expect)
        assert.ok(
          queries.some((q) => q.text.replace(/\s+/g, ' ').includes(expect.completedBy)),
          `ran: ${expect.completedBy}`,
        );
      assert.deepEqual(await sequentialScans(h.db, queries, LARGE), []);
      // named statements settle on a generic plan, estimated for an average account; a busy one has a great many rows
      assert.deepEqual(await sortedScansInGenericPlans(h.db, queries), []);
    });
  }

  // the balance as of a snapshot is found in the snapshot's month: a plan that joins the account's
  // snapshot rows of every month (as a merge or hash join did) reads its whole history
  it('a historical balance reads the snapshot month of the account, not its history', async () => {
    const h = harness();
    await h.resetConfig();
    h.clock.set(null);
    const queries = await h.captureQueries(async () => {
      const res = await get(h, `/api/v1/accounts/${HEAVY}?timestamp=lte:${mid}&transactions=false`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.balance.timestamp, formatTimestamp(T0 + 6n * SNAPSHOT_EVERY));
      assert.equal(res.body.balance.balance, HEAVY * 6);
    });
    const state = queries.filter((q) => q.text.includes('snapshot_balance'));
    assert.equal(state.length, 1);
    for (const mode of ['auto', 'force_generic_plan'] as const) {
      // the treasury's and the account's rows of the month up to the snapshot: 7 each
      const read = await rowsReadFrom(h.db, state[0]!, mode, 'account_balance');
      assert.ok(read <= 2 * SNAPSHOTS, `${mode}: ${read} account_balance rows read`);
    }
  });
}

describe('account queries are index-backed', () => accountPlans({}));

const adminUrl = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
const mirrorSkip = existsSync(MIRROR_SCHEMA_FILE) ? await postgresServerSkipReason(adminUrl) : `${MIRROR_SCHEMA_FILE} is absent`;

describe('account queries on a mirror node database without the optional indexes are index-backed', { skip: mirrorSkip }, () =>
  accountPlans({ backend: 'postgres', schema: 'mirror', optionalIndexes: false }),
);
