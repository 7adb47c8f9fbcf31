/**
 * Values drawn from a generated dataset for the request mixes: accounts (busy, long-tail, NFT
 * owners) with their aliases and EVM addresses, NFTs, blocks and contract results. Every query is
 * a key lookup or a short index range, so sampling is quick at any scale.
 */
import type { Queryable } from '../../src/db/db.js';
import { base32Encode } from '../../src/domain/base32.js';
import { encodeEntityId } from '../../src/domain/entityId.js';
import type { DatasetSummary } from '../generate/dataset.js';
import { Rng } from '../generate/random.js';

export interface AccountSample {
  num: number;
  alias: string | null;
  evm: string | null;
  deleted: boolean;
}

export interface NftSample {
  token: number;
  serial: number;
  owner: number;
  spender: number | null;
}

export interface ContractResultSample {
  /** nanoseconds as decimal text */
  timestamp: string;
  contract: number;
  contractEvm: string | null;
  payer: number;
  validStart: string;
  nonce: number;
  hash: string;
}

export interface DatasetSample {
  summary: DatasetSummary;
  hubs: AccountSample[];
  active: AccountSample[];
  tail: AccountSample[];
  nftOwners: AccountSample[];
  nfts: NftSample[];
  nftTokens: number[];
  blocks: { number: number; hash: string }[];
  contractResults: ContractResultSample[];
}

const num = (id: bigint | null) => (id === null ? 0 : Number(id & ((1n << 38n) - 1n)));

export async function sampleDataset(db: Queryable, summary: DatasetSummary): Promise<DatasetSample> {
  const rng = new Rng(summary.seed, 77);
  const shard = BigInt(summary.shard);
  const realm = BigInt(summary.realm);
  const id = (n: number) => encodeEntityId(shard, realm, BigInt(n));
  const { firstAccount, accounts } = summary.layout;

  const accountsOf = async (nums: number[]): Promise<AccountSample[]> => {
    const rows = await db.query<{ id: bigint; alias: Uint8Array | null; evm_address: Uint8Array | null; deleted: boolean | null }>(
      `select id, alias, evm_address, deleted from entity where id = any($1::bigint[]) and type = 'ACCOUNT' order by id`,
      [[...new Set(nums)].map(id)],
    );
    return rows.map((r) => ({
      num: num(r.id),
      alias: r.alias ? base32Encode(r.alias) : null,
      evm: r.evm_address ? Buffer.from(r.evm_address).toString('hex') : null,
      deleted: r.deleted === true,
    }));
  };

  const hubs = await accountsOf(Object.values(summary.hubs));
  const hubCount = hubs.length;
  const active = await accountsOf(
    Array.from({ length: 200 }, (_, i) => firstAccount + hubCount + i).filter((n) => n < firstAccount + accounts),
  );
  const tail = await accountsOf(Array.from({ length: 400 }, () => firstAccount + rng.int(accounts)));

  const nftTokens = (
    await db.query<{ token_id: bigint; total_supply: bigint }>(
      `select token_id, total_supply from token where type = 'NON_FUNGIBLE_UNIQUE' and total_supply > 0 order by token_id`,
    )
  ).map((r) => ({ token: num(r.token_id), supply: Number(r.total_supply) }));
  const picks = Array.from({ length: 400 }, () => {
    const t = nftTokens[Math.min(nftTokens.length - 1, Math.floor(nftTokens.length * rng.float() ** 2))]!;
    return { token: t.token, serial: 1 + rng.int(t.supply) };
  });
  const nftRows = await db.query<{ token_id: bigint; serial_number: bigint; account_id: bigint; spender: bigint | null }>(
    `select n.token_id, n.serial_number, n.account_id, n.spender
     from unnest($1::bigint[], $2::bigint[]) as k(token_id, serial_number)
     join nft n on n.token_id = k.token_id and n.serial_number = k.serial_number
     where n.account_id is not null`,
    [picks.map((p) => id(p.token)), picks.map((p) => BigInt(p.serial))],
  );
  const nfts = nftRows.map((r) => ({
    token: num(r.token_id),
    serial: Number(r.serial_number),
    owner: num(r.account_id),
    spender: r.spender === null ? null : num(r.spender),
  }));
  const nftOwners = await accountsOf([...summary.topNftOwners.map(([n]) => n), ...nfts.map((n) => n.owner)]);

  const blockNumbers = Array.from({ length: 300 }, () => rng.int(summary.blocks));
  const blocks = (
    await db.query<{ index: bigint; hash: string }>(`select index, hash from record_file where index = any($1::bigint[])`, [
      blockNumbers.map(BigInt),
    ])
  ).map((r) => ({
    number: Number(r.index),
    hash: r.hash,
  }));

  const start = BigInt(summary.windowStart);
  const span = BigInt(summary.windowEnd) - start;
  const contractResults: ContractResultSample[] = [];
  for (let i = 0; i < 8; i++) {
    const from = start + (span * BigInt(rng.int(1000))) / 1000n;
    const rows = await db.query<{
      consensus_timestamp: bigint;
      contract_id: bigint;
      transaction_hash: Uint8Array;
      payer_account_id: bigint;
      valid_start_ns: bigint;
      nonce: number;
      evm_address: Uint8Array | null;
    }>(
      `select cr.consensus_timestamp, cr.contract_id, cr.transaction_hash, t.payer_account_id, t.valid_start_ns, t.nonce, e.evm_address
       from contract_result cr
       join transaction t on t.consensus_timestamp = cr.consensus_timestamp
       left join entity e on e.id = cr.contract_id
       where cr.consensus_timestamp >= $1
       order by cr.consensus_timestamp
       limit 40`,
      [from],
    );
    for (const r of rows) {
      contractResults.push({
        timestamp: String(r.consensus_timestamp),
        contract: num(r.contract_id),
        contractEvm: r.evm_address ? Buffer.from(r.evm_address).toString('hex') : null,
        payer: num(r.payer_account_id),
        validStart: String(r.valid_start_ns),
        nonce: r.nonce,
        hash: Buffer.from(r.transaction_hash).toString('hex'),
      });
    }
  }
  return { summary, hubs, active, tail, nftOwners, nfts, nftTokens: nftTokens.map((t) => t.token), blocks, contractResults };
}
