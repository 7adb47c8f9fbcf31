/**
 * A small, deterministic demo ledger (accounts with tokens and NFTs, blocks, transactions, a
 * contract with results, logs, state changes and an Ethereum transaction), built as a fixture
 * setup so that it goes through the same loader as the reference's own fixtures.
 */
import type { Config } from '../config.js';
import type { Db, Queryable } from '../db/db.js';
import { base32Encode } from '../domain/base32.js';
import { encodeEntityId, type ShardRealm } from '../domain/entityId.js';
import { formatTimestamp } from '../domain/timestamp.js';
import { SetupLoader, type Setup } from '../ledgerSetup/loader.js';

const START = 1_700_000_000_000_000_000n; // 2023-11-14T22:13:20Z
const SECOND = 1_000_000_000n;
const BLOCKS = 40;
const ACCOUNTS = 12;
const FIRST_ACCOUNT = 1001;
const TOKENS = [5001, 5002, 5003];
const NFT_TOKEN = 5004;
const CONTRACT = 6001;
const MEMO = 'demo ledger';

/** mulberry32: a tiny seeded generator, so the demo is the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(rand: () => number, bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++)
    out += Math.floor(rand() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}

export function demoSetup(seed = 42): Setup {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const accountNums = Array.from({ length: ACCOUNTS }, (_, i) => FIRST_ACCOUNT + i);

  const accounts = [
    { num: 2, memo: MEMO, balance: 5_000_000_000_000_000_000n, balance_timestamp: START },
    { num: 3, memo: MEMO, balance: 100_000_000n },
    { num: 98, memo: MEMO, balance: 0 },
    { num: 800, memo: MEMO, balance: 1_000_000_000 },
    ...accountNums.map((num, i) => {
      const ecdsa = i % 2 === 1;
      const key = ecdsa ? '3a21' + '02' + hex(rand, 32) : '1220' + hex(rand, 32);
      return {
        num,
        memo: MEMO,
        balance: BigInt(Math.floor(rand() * 1e12)),
        balance_timestamp: START + BigInt(BLOCKS) * 2n * SECOND,
        created_timestamp: START - BigInt(ACCOUNTS - i) * 86_400n * SECOND,
        auto_renew_period: 7_776_000,
        key,
        alias: ecdsa ? null : base32Encode(Buffer.from(key, 'hex')),
        evm_address: ecdsa ? hex(rand, 20) : null,
        ethereum_nonce: ecdsa ? Math.floor(rand() * 20) : 0,
        staked_node_id: i % 3 === 0 ? i % 2 : -1,
        stake_period_start: i % 3 === 0 ? Number(START / (86_400n * SECOND)) - 3 : -1,
        decline_reward: i % 5 === 4,
        max_automatic_token_associations: 10,
        timestamp_range: `[${START - BigInt(ACCOUNTS - i) * 86_400n * SECOND},)`,
      };
    }),
  ];

  const contracts = [
    {
      num: CONTRACT,
      memo: MEMO,
      evm_address: hex(rand, 20),
      created_timestamp: START - 86_400n * SECOND,
      timestamp_range: `[${START - 86_400n * SECOND},)`,
    },
  ];

  const tokens = [
    ...TOKENS.map((token_id) => ({
      token_id: `0.0.${token_id}`,
      symbol: `DEMO${token_id}`,
      created_timestamp: START - 10n * SECOND,
      type: 'FUNGIBLE_COMMON',
    })),
    { token_id: `0.0.${NFT_TOKEN}`, symbol: 'DEMONFT', created_timestamp: START - 10n * SECOND, type: 'NON_FUNGIBLE_UNIQUE' },
  ];
  const entities = [...TOKENS, NFT_TOKEN].map((num) => ({ num, type: 'TOKEN', memo: MEMO }));

  const tokenaccounts = accountNums.flatMap((num) =>
    [...TOKENS, NFT_TOKEN]
      .filter(() => rand() < 0.7)
      .map((token) => ({
        account_id: `0.0.${num}`,
        token_id: `0.0.${token}`,
        balance: token === NFT_TOKEN ? 0 : Math.floor(rand() * 1e9),
        created_timestamp: START,
      })),
  );

  const nfts = Array.from({ length: 30 }, (_, i) => {
    const owner = pick(accountNums);
    return {
      token_id: `0.0.${NFT_TOKEN}`,
      serial_number: i + 1,
      account_id: `0.0.${owner}`,
      metadata: `demo nft ${i + 1}`,
      created_timestamp: START + BigInt(i) * SECOND,
      timestamp_range: `[${START + BigInt(i) * SECOND + 5n},)`,
      spender: i % 4 === 0 ? `0.0.${pick(accountNums.filter((a) => a !== owner))}` : null,
    };
  });

  const balances = [
    { timestamp: START, id: 2, balance: 5_000_000_000_000_000_000n },
    ...accountNums.map((num) => ({
      timestamp: START,
      id: num,
      balance: Math.floor(rand() * 1e12),
      tokens: TOKENS.filter(() => rand() < 0.5).map((token_num) => ({ token_num, balance: Math.floor(rand() * 1e9) })),
    })),
  ];

  const recordFiles = [];
  const transactions = [];
  const contractresults = [];
  const contractlogs = [];
  const contractStateChanges = [];
  const ethereumtransactions = [];
  let previousHash = '0'.repeat(96);
  for (let b = 0; b < BLOCKS; b++) {
    const from = START + BigInt(b) * 2n * SECOND;
    const txCount = 2 + Math.floor(rand() * 3);
    const timestamps = Array.from({ length: txCount }, (_, t) => from + BigInt(t + 1) * 1_000_000n);
    for (const [t, ts] of timestamps.entries()) {
      const payer = pick(accountNums);
      const receiver = pick(accountNums.filter((a) => a !== payer));
      const kind = (b + t) % 5;
      const base = { consensus_timestamp: ts, payerAccountId: `0.0.${payer}`, nodeAccountId: '0.0.3', transaction_hash: hex(rand, 48) };
      if (kind === 3) {
        const serial = 1 + Math.floor(rand() * 30);
        transactions.push({
          ...base,
          type: 14,
          nft_transfer: [
            {
              sender_account_id: `0.0.${payer}`,
              receiver_account_id: `0.0.${receiver}`,
              token_id: `0.0.${NFT_TOKEN}`,
              serial_number: serial,
              is_approval: false,
            },
          ],
        });
      } else if (kind === 4 && b % 2 === 0) {
        transactions.push({ ...base, type: 50, entity_id: `0.0.${CONTRACT}` });
        const evmHash = hex(rand, 32);
        contractresults.push({
          consensus_timestamp: ts,
          contract_id: CONTRACT,
          payer_account_id: payer,
          sender_id: payer,
          amount: 0,
          call_result: '0x' + hex(rand, 32),
          function_parameters: '0xa9059cbb' + hex(rand, 64),
          gas_limit: 300_000,
          gas_used: 50_000 + Math.floor(rand() * 10_000),
          gas_consumed: 45_000,
          transaction_hash: '0x' + evmHash,
          transaction_index: t,
          bloom: '0x' + hex(rand, 256),
        });
        contractlogs.push({
          consensus_timestamp: ts,
          contract_id: CONTRACT,
          payer_account_id: payer,
          index: 0,
          data: '0x' + hex(rand, 32),
        });
        contractStateChanges.push({
          consensus_timestamp: ts,
          contract_id: CONTRACT,
          payer_account_id: payer,
          slot: '0x0' + t,
          value_read: '0x' + hex(rand, 32),
          value_written: '0x' + hex(rand, 32),
        });
        ethereumtransactions.push({
          consensus_timestamp: ts,
          payer_account_id: payer,
          hash: '0x' + evmHash,
          nonce: b,
          chain_id: '0x128',
          type: 2,
          max_fee_per_gas: '0x2f',
          max_priority_fee_per_gas: '0x2f',
          gas_price: null,
          to_address: null,
          value: '0x00',
        });
      } else {
        const amount = 1 + Math.floor(rand() * 1e8);
        const token = pick(TOKENS);
        transactions.push({
          ...base,
          transfers: [
            { account: `0.0.${payer}`, amount: -amount - 3 },
            { account: `0.0.${receiver}`, amount },
            { account: '0.0.3', amount: 2 },
            { account: '0.0.98', amount: 1 },
          ],
          ...(kind === 2
            ? {
                token_transfer_list: [
                  { token_id: `0.0.${token}`, account: `0.0.${payer}`, amount: -100 },
                  { token_id: `0.0.${token}`, account: `0.0.${receiver}`, amount: 100 },
                ],
              }
            : {}),
        });
      }
    }
    const hash = hex(rand, 48);
    recordFiles.push({
      index: b,
      consensus_start: from,
      consensus_end: from + 2n * SECOND - 1n,
      count: txCount,
      gas_used: 0,
      hash,
      prev_hash: previousHash,
      name: `${new Date(Number(from / 1_000_000n)).toISOString().replace(/:/g, '_')}.rcd`,
      logs_bloom: '0x' + hex(rand, 256),
      hapi_version_major: 0,
      hapi_version_minor: 56,
      hapi_version_patch: 0,
      bytes: null,
      size: 4000 + Math.floor(rand() * 4000),
    });
    previousHash = hash;
  }

  return {
    accounts,
    contracts,
    entities,
    tokens,
    tokenaccounts,
    nfts,
    balances,
    recordFiles,
    transactions,
    contractresults,
    contractlogs,
    contractStateChanges,
    ethereumtransactions,
  };
}

export async function loadDemoLedger(db: Db, config: Config): Promise<void> {
  await db.transaction((tx) => new SetupLoader(tx, config).load(demoSetup()));
}

/** Whether the database holds the demo ledger: one primary-key lookup of its first account, never a scan. */
export async function isDemoLedger(db: Queryable, system: ShardRealm): Promise<boolean> {
  const id = encodeEntityId(system.shard, system.realm, BigInt(FIRST_ACCOUNT));
  const rows = await db.query(`select 1 from entity where id = $1 and memo = $2`, [id, MEMO]);
  return rows.length > 0;
}

/** A few URLs that answer on the demo ledger. */
export function demoExampleUrls(): string[] {
  const setup = demoSetup() as {
    nfts: { account_id: string }[];
    contractresults: { consensus_timestamp: bigint }[];
    recordFiles: { index: number }[];
  };
  const contractTimestamp = formatTimestamp(setup.contractresults[0]!.consensus_timestamp);
  return [
    `/api/v1/accounts/0.0.${FIRST_ACCOUNT}`,
    `/api/v1/accounts/${setup.nfts[0]!.account_id}/nfts?limit=5`,
    '/api/v1/blocks?limit=5',
    `/api/v1/blocks/${setup.recordFiles.at(-1)!.index}`,
    `/api/v1/contracts/0.0.${CONTRACT}/results/${contractTimestamp}`,
  ];
}
