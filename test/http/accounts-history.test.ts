import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { errorOf, get, useHarness } from '../support/harness.js';

const SECOND = 1_000_000_000n;
const T = 1_700_000_000_000_000_000n;
const at = (seconds: number) => formatTimestamp(T + BigInt(seconds) * SECOND)!;
const utc = (y: number, m: number, d: number, h = 0) => BigInt(Date.UTC(y, m - 1, d, h)) * 1_000_000n;

/** Account 0.0.8 in three versions (memo v1, v2, v3) and two staking versions; no balance snapshots. */
function versions() {
  const version = (memo: string, balance: number, from: number, to: number | null) => ({
    num: 8,
    memo,
    balance,
    balance_timestamp: (T + BigInt(from) * SECOND + 1n).toString(),
    staked_node_id: 1,
    stake_period_start: 10,
    timestamp_range: `[${T + BigInt(from) * SECOND},${to === null ? '' : T + BigInt(to) * SECOND})`,
  });
  return {
    accounts: [version('v1', 10, 0, 10), version('v2', 20, 10, 20), version('v3', 30, 20, null)],
    entityStakes: [
      { id: 8, pending_reward: 1, end_stake_period: 20, timestamp_range: `[${T},${T + 15n * SECOND})` },
      { id: 8, pending_reward: 2, end_stake_period: 20, timestamp_range: `[${T + 15n * SECOND},)` },
    ],
  };
}

const S1 = utc(2023, 10, 15);
const S2 = utc(2023, 11, 15);
const S3 = utc(2023, 12, 5);

const OCT_20 = utc(2023, 10, 20);

/**
 * Account 0.0.8 (an older version until Oct 20, the current one since) with balance snapshots
 * (treasury rows) on Oct 15, Nov 15 and Dec 5 2023; now is Dec 20 2023.
 */
function snapshots(extra: Record<string, unknown[]> = {}) {
  return {
    features: { fakeTime: '2023-12-20Z' },
    accounts: [
      { num: 2 },
      { num: 8, balance: 888, balance_timestamp: '1697000000000000000', timestamp_range: `[0,${OCT_20})` },
      { num: 8, balance: 999, balance_timestamp: '1702000000000000000', timestamp_range: `[${OCT_20},)` },
    ],
    balances: [
      { timestamp: S1, id: 2, balance: 1 },
      { timestamp: S2, id: 2, balance: 1 },
      { timestamp: S3, id: 2, balance: 1 },
      { timestamp: S1, id: 8, balance: 400, tokens: [{ token_num: 5003, balance: 43 }] },
      {
        timestamp: utc(2023, 11, 1),
        id: 8,
        balance: 500,
        tokens: [
          { token_num: 5001, balance: 51 },
          { token_num: 5002, balance: 52 },
        ],
      },
      { timestamp: S2, id: 8, balance: 600, tokens: [{ token_num: 5001, balance: 61 }] },
      ...(extra.balances ?? []),
    ],
  };
}

describe('account as of a timestamp', () => {
  const harness = useHarness();
  const account = async (qs: string) => {
    const res = await get(harness(), `/api/v1/accounts/0.0.8?${qs}`);
    assert.equal(res.status, 200, `${qs}: ${res.text}`);
    return res.body;
  };

  it('selects the latest entity and staking versions valid in the range, for every operator', async () => {
    await harness().prepare(versions());
    const cases: [string, string, number][] = [
      [`timestamp=lt:${at(10)}`, 'v1', 1],
      [`timestamp=lte:${at(10)}`, 'v2', 1],
      [`timestamp=gt:${at(10)}`, 'v3', 2],
      [`timestamp=gte:${at(19)}`, 'v3', 2],
      [`timestamp=gte:${at(5)}&timestamp=lte:${at(12)}`, 'v2', 1],
      [`timestamp=gte:${at(5)}&timestamp=lt:${at(10)}`, 'v1', 1],
      [`timestamp=${at(5)}`, 'v1', 1],
      [`timestamp=eq:${at(25)}`, 'v3', 2],
      [`timestamp=ne:${at(25)}`, 'v2', 1],
      [`timestamp=gt:${at(1)}&timestamp=gt:${at(12)}&timestamp=lt:${at(30)}&timestamp=lt:${at(19)}`, 'v2', 2],
      [`timestamp=${at(5)}&timestamp=${at(25)}`, 'v1', 1],
      [`timestamp=${at(25)}&timestamp=gt:${at(12)}`, 'v3', 2],
    ];
    for (const [qs, memo, pendingReward] of cases) {
      const body = await account(qs);
      assert.equal(body.memo, memo, qs);
      assert.equal(body.pending_reward, pendingReward, qs);
      const balance = { v1: 10, v2: 20, v3: 30 }[memo];
      assert.equal(body.balance.balance, balance, `${qs}: no snapshot, the version's balance`);
      assert.deepEqual(body.balance.tokens, [], qs);
    }
    assert.equal((await account('')).memo, 'v3', 'no timestamp: the current row');
  });

  it('answers 404 when no version is valid, and for an empty range', async () => {
    await harness().prepare(versions());
    let res = await get(harness(), `/api/v1/accounts/0.0.8?timestamp=lt:${at(0)}`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, errorOf('Not found'));
    for (const qs of [
      `timestamp=gt:${at(5)}&timestamp=lt:${at(5)}`,
      `timestamp=gte:${at(6)}&timestamp=lte:${at(5)}`,
      `timestamp=gt:${at(5)}&timestamp=lte:${at(5)}`,
    ]) {
      res = await get(harness(), `/api/v1/accounts/0.0.8?${qs}`);
      assert.equal(res.status, 404, qs);
      assert.deepEqual(res.body, errorOf('Timestamp range is empty'), qs);
    }
    res = await get(harness(), `/api/v1/accounts/0.0.9?timestamp=gt:${at(5)}&timestamp=lt:${at(5)}`);
    assert.deepEqual(res.body, errorOf('Timestamp range is empty'), 'an unknown numeric account is not looked up first');
    res = await get(harness(), `/api/v1/accounts/0x${'ab'.repeat(20)}?timestamp=gt:${at(5)}&timestamp=lt:${at(5)}`);
    assert.deepEqual(res.body, errorOf('Not found'), 'path resolution comes before the range check');
  });

  it('takes balances from the latest snapshot in the window, read from the start of its month', async () => {
    await harness().prepare(snapshots());
    let body = await account(`timestamp=lte:${formatTimestamp(S2)}`);
    assert.deepEqual(body.balance, {
      balance: 600,
      timestamp: formatTimestamp(S2),
      tokens: [
        { token_id: '0.0.5001', balance: 61 },
        { token_id: '0.0.5002', balance: 52 },
      ],
    });

    body = await account(`timestamp=lte:${formatTimestamp(S2)}&order=desc`);
    assert.deepEqual(
      body.balance.tokens.map((t: { token_id: string }) => t.token_id),
      ['0.0.5001', '0.0.5002'],
      'always by token id ascending',
    );

    body = await account(`timestamp=lt:${formatTimestamp(S2)}`);
    assert.deepEqual(body.balance, { balance: 400, timestamp: formatTimestamp(S1), tokens: [{ token_id: '0.0.5003', balance: 43 }] });

    body = await account(`timestamp=${formatTimestamp(S3)}`);
    assert.deepEqual(body.balance, { balance: 0, timestamp: formatTimestamp(S3), tokens: [] }, 'no row of the account in that month');

    body = await account(`timestamp=gt:${formatTimestamp(S1)}&timestamp=ne:${formatTimestamp(S3)}`);
    assert.equal(body.balance.timestamp, formatTimestamp(S2), 'ne excludes a snapshot');

    await harness().configure({ response: { limit: { tokenBalance: { singleAccount: 1 } } } });
    body = await account(`timestamp=lte:${formatTimestamp(S2)}`);
    assert.deepEqual(body.balance.tokens, [{ token_id: '0.0.5001', balance: 61 }]);
  });

  it('falls back to the entity balance when no snapshot lies in the window', async () => {
    await harness().prepare(snapshots());
    const older = { balance: 888, timestamp: '1697000000.000000000', tokens: [] };
    const current = { balance: 999, timestamp: '1702000000.000000000', tokens: [] };
    // the window starts on the first of the month before min(upper, now): Nov 1 for an upper bound in December;
    // the ne values also rule out the current version, which contains them
    let body = await account(
      `timestamp=lte:${formatTimestamp(S3)}&timestamp=ne:${formatTimestamp(S3)}&timestamp=ne:${formatTimestamp(S2)}`,
    );
    assert.deepEqual(body.balance, older, 'Oct 15 is before the window');
    body = await account(`timestamp=gt:${formatTimestamp(S3)}`);
    assert.deepEqual(body.balance, current, 'nothing after the last snapshot');
    body = await account(`timestamp=lt:${formatTimestamp(S1)}`);
    assert.deepEqual(body.balance, older, 'nothing before the first');

    harness().clock.set(utc(2024, 3, 1));
    body = await account(`timestamp=gte:${formatTimestamp(S1)}`);
    assert.deepEqual(body.balance, current, 'without an upper bound the window ends now');
  });

  it('includes a snapshot at the first instant of the window and excludes one just before', async () => {
    await harness().prepare(
      snapshots({
        balances: [
          { timestamp: utc(2023, 11, 1), id: 2, balance: 1 },
          { timestamp: utc(2023, 11, 1) - 1n, id: 2, balance: 1 },
          { timestamp: utc(2023, 11, 1) - 1n, id: 8, balance: 333 },
        ],
      }),
    );
    const upper = `timestamp=lte:${formatTimestamp(S3)}&timestamp=ne:${formatTimestamp(S3)}&timestamp=ne:${formatTimestamp(S2)}`;
    let body = await account(upper);
    assert.deepEqual(body.balance, {
      balance: 500,
      timestamp: formatTimestamp(utc(2023, 11, 1)),
      tokens: [
        { token_id: '0.0.5001', balance: 51 },
        { token_id: '0.0.5002', balance: 52 },
      ],
    });
    body = await account(`${upper}&timestamp=ne:${formatTimestamp(utc(2023, 11, 1))}`);
    assert.deepEqual(
      body.balance,
      { balance: 888, timestamp: '1697000000.000000000', tokens: [] },
      'Oct 31 23:59:59.999999999 is outside the window',
    );
  });
});
