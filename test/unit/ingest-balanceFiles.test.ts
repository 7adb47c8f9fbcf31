/**
 * The account balance file readers on the real files of ../shared/streams/accountBalances (CSV v1,
 * CSV v2 with token balances, protobuf), against the counts and sums of its README, and the mainnet
 * errata's time offsets of balance files.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { balanceFileTimeOffset } from '../../src/ingest/errata/balanceOffsets.js';
import { readMainnetErrata } from '../../src/ingest/errata/mainnetErrataFiles.js';
import { readBalanceFile } from '../../src/ingest/readers/balanceFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { balanceSignatureName } from '../../src/ingest/walkers/balanceFileWalker.js';
import { STREAMS_DIR, streamFile } from '../support/streamGroundTruth.js';

const FIFTY_BILLION_HBAR = 5_000_000_000_000_000_000n;

function read(path: string) {
  return readBalanceFile(path, streamFile(path));
}

function sums(path: string) {
  const file = read(path);
  let hbar = 0n;
  let tokens = 0;
  for (const a of file.accounts) {
    hbar += a.balance;
    tokens += a.tokens.length;
  }
  return { file, hbar, tokens };
}

describe('account balance files', () => {
  const cases = [
    {
      path: 'accountBalances/v1/balance0.0.3/2019-08-30T18_15_00.016002001Z_Balances.csv',
      accounts: 25_391,
      tokens: 0,
      hbar: FIFTY_BILLION_HBAR,
      ts: 1567188900016002001n,
    },
    {
      path: 'accountBalances/v1/balance0.0.6/2019-08-30T18_30_00.010147001Z_Balances.csv',
      accounts: 25_391,
      tokens: 0,
      hbar: FIFTY_BILLION_HBAR,
      ts: 1567189800010147001n,
    },
    {
      path: 'accountBalances/v2/balance0.0.3/2020-09-22T04_25_00.083212003Z_Balances.csv',
      accounts: 106,
      tokens: null,
      hbar: FIFTY_BILLION_HBAR,
      ts: 1600748700083212003n,
    },
    {
      path: 'accountBalances/mixed/balance0.0.4/2021-03-10T22_12_56.075092Z_Balances.pb.gz',
      accounts: 2_485,
      tokens: 412,
      hbar: FIFTY_BILLION_HBAR,
      ts: 1615414376075092000n,
    },
    {
      path: 'accountBalances/proto/2021-03-08T20_15_00Z_Balances.pb.gz',
      accounts: 10,
      tokens: 50,
      hbar: 30_045n,
      ts: 1615234500000000000n,
    },
  ];
  for (const c of cases) {
    it(`${c.path}: ${c.accounts} accounts summing to ${c.hbar} tinybar`, () => {
      const { file, hbar, tokens } = sums(c.path);
      assert.equal(file.accounts.length, c.accounts);
      assert.equal(hbar, c.hbar);
      assert.equal(file.consensusTimestamp, c.ts);
      if (c.tokens !== null) assert.equal(tokens, c.tokens);
    });
  }

  it('reads the token balances column of CSV v2 (base64 TokenBalances)', () => {
    const { file, tokens } = sums('accountBalances/v2/balance0.0.3/2020-09-22T04_25_00.083212003Z_Balances.csv');
    assert.ok(tokens > 0, 'the v2 file holds token balances');
    // the line `0,0,1002,1000000000,CgkKAxjuBxDAhD0=`: token 0.0.1006, balance 1000000
    const account = file.accounts.find((a) => a.accountId === encodeEntityId(0n, 0n, 1002n))!;
    assert.deepEqual(account.tokens, [{ tokenId: encodeEntityId(0n, 0n, 1006n), balance: 1_000_000n }]);
  });

  it('refuses the empty .csv decoys of the mixed folder, a line that is not an account, a balance beyond 64 bits', () => {
    const decoy = 'accountBalances/mixed/balance0.0.3/2021-03-10T22_12_56.075092Z_Balances.csv';
    assert.throws(
      () => read(decoy),
      (e) => e instanceof StreamFileError && /TimeStamp/.test(e.message),
    );
    const bad = Buffer.from('TimeStamp:2019-08-30T18:15:00.016002001Z\nshardNum,realmNum,accountNum,balance\n0,0,x,1\n');
    assert.throws(
      () => readBalanceFile('x_Balances.csv', bad),
      (e) => e instanceof StreamFileError && /line 3/.test(e.message),
    );
    const huge = Buffer.from('TimeStamp:2019-08-30T18:15:00.016002001Z\nshardNum,realmNum,accountNum,balance\n0,0,2,9223372036854775808\n');
    assert.throws(
      () => readBalanceFile('x_Balances.csv', huge),
      (e) => e instanceof StreamFileError && /beyond a 64-bit/.test(e.message),
    );
  });

  it('names the signature files as the buckets do', () => {
    assert.equal(balanceSignatureName('T_Balances.csv'), 'T_Balances.csv_sig');
    assert.equal(balanceSignatureName('T_Balances.pb.gz'), 'T_Balances.pb_sig.gz');
  });
});

describe('the mainnet errata of balance files', () => {
  const listed = readMainnetErrata(`${STREAMS_DIR}/errata/mainnet`).balanceOffsets;

  it('reads the 6,949 offsets of the real errata file', () => {
    assert.equal(listed.size, 6_949);
    assert.ok(listed.has(1568415600193620000n));
  });

  it('gives −1 ns to the listed files, 53 ns from 2022-07-21 to 2022-10-21, on mainnet only', () => {
    assert.equal(balanceFileTimeOffset('mainnet', 1568415600193620000n, listed), -1);
    assert.equal(balanceFileTimeOffset('mainnet', 1599580800153882000n, listed), -1);
    assert.equal(balanceFileTimeOffset('mainnet', 1568415600193620001n, listed), 0);
    assert.equal(balanceFileTimeOffset('mainnet', 1658420100626004000n, listed), 53);
    assert.equal(balanceFileTimeOffset('mainnet', 1666368000880378771n, listed), 0);
    assert.equal(balanceFileTimeOffset('testnet', 1568415600193620000n, listed), 0);
    assert.equal(balanceFileTimeOffset(null, 1658420100626004000n, listed), 0);
  });

  it('without the errata folder: no −1 ns offsets, the 53 ns ones still', () => {
    assert.equal(balanceFileTimeOffset('mainnet', 1568415600193620000n, null), 0);
    assert.equal(balanceFileTimeOffset('mainnet', 1658420100626004000n, null), 53);
  });
});
