import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { decodeExchangeRateSet, decodeFeeSchedules } from '../../src/domain/protobuf.js';
import { formatKey } from '../../src/domain/key.js';
import { writeLedger, type LedgerOutcome } from '../../tools/generate/generate.js';
import { accountProfile } from '../../tools/generate/profiles.js';
import { Rng, keyedRng } from '../../tools/generate/random.js';
import { scaleOf } from '../../tools/generate/scales.js';
import { MemorySink } from '../../tools/generate/sink.js';
import { exchangeRateSet, feeSchedules } from '../../tools/generate/systemFiles.js';
import { TABLES } from '../../tools/generate/tables.js';
import { dayStartOffset, epochDay, nsText, offsetOf, recordFileName } from '../../tools/generate/time.js';
import { HUBS } from '../../tools/generate/layout.js';

const TINY = scaleOf('tiny');
const SYSTEM = { shard: 0n, realm: 0n };

async function generate(seed: number, keep: string[] = []): Promise<{ sink: MemorySink; outcome: LedgerOutcome }> {
  const sink = new MemorySink(new Set(keep));
  const outcome = await writeLedger(sink, { scale: TINY, seed, system: SYSTEM, chainId: '0x128' }, 1 << 16);
  return { sink, outcome };
}

type Rows = string[][];

function column(table: keyof typeof TABLES, name: string): number {
  const i = TABLES[table].columns.indexOf(name as never);
  assert.ok(i >= 0, `${TABLES[table].name}.${name}`);
  return i;
}

describe('generator randomness', () => {
  it('is deterministic per seed and key', () => {
    const a = new Rng(5);
    const b = new Rng(5);
    const c = new Rng(6);
    const seqA = Array.from({ length: 20 }, () => a.uint32());
    assert.deepEqual(
      seqA,
      Array.from({ length: 20 }, () => b.uint32()),
    );
    assert.notDeepEqual(
      seqA,
      Array.from({ length: 20 }, () => c.uint32()),
    );
    assert.equal(keyedRng(1, 2, 3).uint32(), keyedRng(1, 2, 3).uint32());
    assert.notEqual(keyedRng(1, 2, 3).uint32(), keyedRng(1, 2, 4).uint32());
  });

  it('skews power-law picks towards the first indexes', () => {
    const rng = new Rng(9);
    const n = 10_000;
    const hits = new Uint32Array(n);
    for (let i = 0; i < 200_000; i++) hits[rng.powerIndex(n, 3)]!++;
    const top1pct = hits.slice(0, n / 100).reduce((a, b) => a + b, 0) / 200_000;
    // P(index < n/100) = 0.01^(1/3) ≈ 0.215
    assert.ok(Math.abs(top1pct - 0.215) < 0.01, `top 1% share ${top1pct}`);
    const bottomHalf = hits.slice(n / 2).reduce((a, b) => a + b, 0) / 200_000;
    assert.ok(bottomHalf > 0.1 && bottomHalf < 0.25, `bottom half share ${bottomHalf}`);
  });
});

describe('generator encodings', () => {
  it('prints offsets as exact int64 nanoseconds', () => {
    assert.equal(nsText(0), '1706731200000000000');
    assert.equal(nsText(1), '1706731200000000001');
    assert.equal(nsText(-1), '1706731199999999999');
    assert.equal(nsText(2_999_999_999), '1706731202999999999');
    assert.equal(nsText(7_000_000_000_000_000 - 1), '1713731199999999999');
    assert.equal(offsetOf(BigInt(nsText(123_456_789_012))), 123_456_789_012);
    assert.equal(recordFileName(1_500_000_123), '2024-01-31T20_00_01.500000123Z.rcd');
    assert.equal(dayStartOffset(epochDay(0)), -20 * 3600e9, 'the window opens at 20:00 UTC');
  });

  it('writes system files that the service decodes', () => {
    const rates = decodeExchangeRateSet(
      exchangeRateSet(
        { hbarEquiv: 30_000, centEquiv: 360_000, expirationSeconds: 1_800_000_000 },
        { hbarEquiv: 1, centEquiv: 2, expirationSeconds: 3 },
      ),
    );
    assert.deepEqual(rates.current, { hbarEquiv: 30_000n, centEquiv: 360_000n, expirationSeconds: 1_800_000_000n });
    assert.equal(rates.next.centEquiv, 2n);
    const schedules = decodeFeeSchedules(feeSchedules(1_800_000_000, 1_900_000_000));
    assert.equal(schedules.current.contractCallGas, 852_000n);
    assert.equal(schedules.current.expirySeconds, 1_800_000_000n);
    assert.equal(schedules.next.expirySeconds, 1_900_000_000n);
  });

  it('gives accounts keys, aliases and EVM addresses of the real shapes', () => {
    const kinds = new Map<string, number>();
    for (let num = 1001; num < 3001; num++) {
      const p = accountProfile(42, num);
      const key = formatKey(p.key)!;
      kinds.set(key._type, (kinds.get(key._type) ?? 0) + 1);
      if (key._type === 'ECDSA_SECP256K1') {
        assert.equal(p.evmAddress?.length, 20);
        assert.ok(p.alias === null || p.alias.length === 20 || p.alias.equals(p.key));
      } else {
        assert.equal(p.evmAddress, null);
      }
      assert.deepEqual(accountProfile(42, num), p, 'derived from the seed and number alone');
    }
    assert.ok(
      kinds.get('ED25519')! > 1000 && kinds.get('ECDSA_SECP256K1')! > 500 && kinds.get('ProtobufEncoded')! > 10,
      JSON.stringify([...kinds]),
    );
  });
});

describe('generated ledger (tiny scale, in memory)', () => {
  const keep = [
    'transaction',
    'crypto_transfer',
    'token_transfer',
    'record_file',
    'contract_result',
    'contract_transaction',
    'ethereum_transaction',
    'account_balance',
    'nft',
    'entity',
  ];
  let first: { sink: MemorySink; outcome: LedgerOutcome };
  let rows: Record<string, Rows>;

  before(async () => {
    first = await generate(7, keep);
    rows = Object.fromEntries(keep.map((t) => [t, first.sink.rows.get(t) ?? []]));
  });

  it('is the same ledger for the same seed and another for another seed', async () => {
    const again = await generate(7);
    const other = await generate(8);
    assert.deepEqual(again.sink.digestHex(), first.sink.digestHex());
    assert.deepEqual(again.outcome.rows, first.outcome.rows);
    const otherDigests = other.sink.digestHex();
    for (const [table, digest] of Object.entries(first.sink.digestHex())) {
      if (['file_data', 'token', 'custom_fee', 'contract'].includes(table)) continue;
      assert.notEqual(otherDigests[table], digest, table);
    }
  });

  it('writes rows of the declared width with integer timestamps', () => {
    for (const spec of Object.values(TABLES)) {
      for (const row of first.sink.rows.get(spec.name) ?? []) assert.equal(row.length, spec.columns.length, `${spec.name} row width`);
    }
    const ts = column('transaction', 'consensus_timestamp');
    const start = column('transaction', 'valid_start_ns');
    for (const row of rows.transaction!) {
      assert.match(row[ts]!, /^\d{19}$/);
      assert.match(row[start]!, /^\d{19}$/);
    }
  });

  it('meets the scale: transactions, blocks, NFTs, contract results', () => {
    const { summary } = first.outcome;
    assert.ok(summary.transactions.topLevel >= TINY.transactions);
    assert.equal(rows.transaction!.length, summary.transactions.topLevel + summary.transactions.children);
    assert.equal(rows.record_file!.length, TINY.blocks);
    assert.equal(rows.nft!.length, TINY.nfts);
    assert.ok(summary.contractResults >= TINY.contractResults);
    assert.ok(rows.crypto_transfer!.length + rows.token_transfer!.length >= 2.5 * TINY.transactions);
  });

  it('balances every transaction and attaches every transfer to one', () => {
    const ts = column('transaction', 'consensus_timestamp');
    const payer = column('transaction', 'payer_account_id');
    const transactions = new Map(rows.transaction!.map((r) => [r[ts]!, r[payer]!]));
    assert.equal(transactions.size, rows.transaction!.length, 'unique consensus timestamps');
    const sums = new Map<string, bigint>();
    const [cts, cpayer, camount] = [
      column('cryptoTransfer', 'consensus_timestamp'),
      column('cryptoTransfer', 'payer_account_id'),
      column('cryptoTransfer', 'amount'),
    ];
    for (const r of rows.crypto_transfer!) {
      assert.equal(transactions.get(r[cts]!), r[cpayer], `crypto transfer at ${r[cts]} has its transaction`);
      sums.set(r[cts]!, (sums.get(r[cts]!) ?? 0n) + BigInt(r[camount]!));
    }
    for (const [at, sum] of sums) assert.equal(sum, 0n, `transfers at ${at} add up to zero`);
    const [tts, tpayer, ttoken, tamount] = ['consensus_timestamp', 'payer_account_id', 'token_id', 'amount'].map((c) =>
      column('tokenTransfer', c),
    );
    const tokenSums = new Map<string, bigint>();
    for (const r of rows.token_transfer!) {
      assert.equal(transactions.get(r[tts!]!), r[tpayer!]);
      const key = `${r[tts!]}/${r[ttoken!]}`;
      tokenSums.set(key, (tokenSums.get(key) ?? 0n) + BigInt(r[tamount!]!));
    }
    for (const [key, sum] of tokenSums) assert.equal(sum, 0n, key);
  });

  it('chains blocks every ~2 s over the transactions they count', () => {
    const [index, start, end, count, hash, prev] = ['index', 'consensus_start', 'consensus_end', 'count', 'hash', 'prev_hash'].map((c) =>
      column('recordFile', c),
    );
    const blocks = rows.record_file!;
    const ts = rows.transaction!.map((r) => BigInt(r[column('transaction', 'consensus_timestamp')]!)).sort((a, b) => (a < b ? -1 : 1));
    let t = 0;
    for (let b = 0; b < blocks.length; b++) {
      const row = blocks[b]!;
      assert.equal(row[index!], String(b));
      assert.match(row[hash!]!, /^[0-9a-f]{96}$/);
      assert.equal(row[prev!], b === 0 ? '0'.repeat(96) : blocks[b - 1]![hash!]);
      let n = 0;
      while (t < ts.length && ts[t]! <= BigInt(row[end!]!)) {
        assert.ok(ts[t]! >= BigInt(row[start!]!), 'every transaction inside a block');
        t++;
        n++;
      }
      assert.equal(String(n), row[count!], `block ${b} count`);
    }
    assert.equal(t, ts.length);
    const span = Number(BigInt(blocks.at(-1)![end!]!) - BigInt(blocks[0]![start!]!)) / 1e9;
    assert.ok(Math.abs(span / blocks.length - 2) < 0.05, `about 2 s per block: ${span / blocks.length}`);
  });

  it('skews activity: hubs pay a large share, most accounts little', () => {
    const payer = column('transaction', 'payer_account_id');
    const counts = new Map<string, number>();
    for (const r of rows.transaction!) counts.set(r[payer]!, (counts.get(r[payer]!) ?? 0) + 1);
    const total = rows.transaction!.length;
    assert.ok(counts.get(String(HUBS.exchange))! / total > 0.1, 'the exchange pays more than a tenth');
    assert.ok(counts.get(String(HUBS.messenger))! / total > 0.05, 'the topic bot pays a twentieth');
    const userCounts = [...counts]
      .filter(([id]) => Number(id) > 1005)
      .map(([, n]) => n)
      .sort((a, b) => a - b);
    assert.ok(userCounts[Math.floor(userCounts.length / 2)]! <= 5, 'the median account pays a handful');
    assert.ok(userCounts.at(-1)! >= 50, 'some accounts are busy');
  });

  it('gives every contract result its contract_transaction rows and Ethereum data its transaction', () => {
    const [cts, ccontract, cpayer] = ['consensus_timestamp', 'contract_id', 'payer_account_id'].map((c) => column('contractResult', c));
    const involved = new Set(
      rows.contract_transaction!.map(
        (r) => `${r[column('contractTransaction', 'consensus_timestamp')]}/${r[column('contractTransaction', 'entity_id')]}`,
      ),
    );
    for (const r of rows.contract_result!) {
      assert.ok(involved.has(`${r[cts!]}/${r[ccontract!]}`), 'contract row');
      assert.ok(involved.has(`${r[cts!]}/${r[cpayer!]}`), 'payer row');
    }
    const payers = new Map(
      rows.transaction!.map((r) => [r[column('transaction', 'consensus_timestamp')]!, r[column('transaction', 'payer_account_id')]!]),
    );
    const results = new Set(rows.contract_result!.map((r) => r[cts!]));
    for (const r of rows.ethereum_transaction!) {
      const at = r[column('ethereumTransaction', 'consensus_timestamp')]!;
      assert.equal(payers.get(at), r[column('ethereumTransaction', 'payer_account_id')]);
      assert.ok(results.has(at));
    }
  });

  it('marks every balance snapshot with a treasury row', () => {
    const [ts, account] = [column('accountBalance', 'consensus_timestamp'), column('accountBalance', 'account_id')];
    const snapshots = new Set(rows.account_balance!.map((r) => r[ts]));
    const treasury = new Set(rows.account_balance!.filter((r) => r[account] === '2').map((r) => r[ts]));
    assert.deepEqual(treasury, snapshots);
    assert.equal(snapshots.size, TINY.snapshots);
  });

  it('writes each entity once, with the hubs and the NFT owners among them', () => {
    const ids = rows.entity!.map((r) => r[column('entity', 'id')]);
    assert.equal(new Set(ids).size, ids.length);
    for (const hub of Object.values(HUBS)) assert.ok(ids.includes(String(hub)));
    const owners = new Set(rows.nft!.map((r) => r[column('nft', 'account_id')]).filter((o) => o !== '\\N'));
    for (const owner of owners) assert.ok(ids.includes(owner), `NFT owner ${owner} exists`);
    assert.ok(first.outcome.summary.topNftOwners[0]![1] > 20, 'some account owns many NFTs');
  });
});
