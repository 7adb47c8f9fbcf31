/**
 * Request mixes per endpoint, drawn from a dataset sample: every path form, filters, historical
 * queries and a share of requests that must answer 400 or 404. `links.next` pages are added
 * later from live responses (see harvestNextPages in run.ts).
 */
import { base32Encode } from '../../src/domain/base32.js';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { Rng } from '../generate/random.js';
import { CEILING_JSON_PATH, CEILING_PK_PATH } from './protocol.js';
import type { AccountSample, ContractResultSample, DatasetSample } from './sample.js';
import type { MixRequest, TargetName } from './targets.js';

const POOL_SIZE = 2_000;

type Generator = (rng: Rng) => MixRequest;
type Category = [weight: number, generate: Generator];

function pool(rng: Rng, categories: Category[]): MixRequest[] {
  const weights = categories.map(([w]) => w);
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: POOL_SIZE }, () => categories[rng.weighted(weights, total)]![1](rng));
}

const ok = (path: string, kind: string): MixRequest => ({ path, expect: 'ok', kind });
const bad = (path: string, kind: string): MixRequest => ({ path, expect: 400, kind });
const missing = (path: string, kind: string): MixRequest => ({ path, expect: 404, kind });

function randomHex(rng: Rng, bytes: number): string {
  return rng.bytes(bytes).toString('hex');
}

class Forms {
  constructor(private readonly sample: DatasetSample) {}

  id(num: number): string {
    return `${this.sample.summary.shard}.${this.sample.summary.realm}.${num}`;
  }

  /** The account in one of its path forms: num, shard.realm.num, alias or EVM address. */
  account(rng: Rng, a: AccountSample): string {
    const forms = [String(a.num), this.id(a.num)];
    if (!a.deleted && a.alias) forms.push(a.alias);
    if (!a.deleted && a.evm) forms.push('0x' + a.evm);
    return rng.pick(forms);
  }

  /** A timestamp inside the window, as `seconds.nanos`. */
  timestamp(rng: Rng, fraction = rng.float()): string {
    const start = BigInt(this.sample.summary.windowStart);
    const span = BigInt(this.sample.summary.windowEnd) - start;
    return formatTimestamp(start + (span * BigInt(Math.floor(fraction * 1e6))) / 1_000_000n)!;
  }
}

function accountsMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const live = (list: AccountSample[]) => list.filter((a) => !a.deleted);
  const active = live(s.active);
  const withAlias = live([...s.active, ...s.tail]).filter((a) => a.alias);
  const withEvm = live([...s.active, ...s.tail]).filter((a) => a.evm);
  const base = '/api/v1/accounts/';
  const categories: Category[] = [
    [8, (r) => ok(`${base}${f.id(r.pick(s.hubs).num)}${r.pick(['', '?limit=100', '?limit=10'])}`, 'huge account')],
    [15, (r) => ok(`${base}${f.id(r.pick(active).num)}`, 'active account shard.realm.num')],
    [10, (r) => ok(`${base}${r.pick(active).num}`, 'active account num')],
    [12, (r) => ok(`${base}${f.id(r.pick(s.tail).num)}`, 'long-tail account')],
    [8, (r) => ok(`${base}${r.pick(withAlias).alias}`, 'alias')],
    [8, (r) => ok(`${base}0x${r.pick(withEvm).evm}`, 'evm address')],
    [10, (r) => ok(`${base}${f.id(r.pick(active).num)}?timestamp=lte:${f.timestamp(r)}`, 'historical timestamp=lte')],
    [
      5,
      (r) => {
        const from = r.float() * 0.9;
        return ok(
          `${base}${f.id(r.pick(active).num)}?timestamp=gte:${f.timestamp(r, from)}&timestamp=lt:${f.timestamp(r, from + 0.05)}`,
          'historical range',
        );
      },
    ],
    [
      4,
      (r) =>
        ok(
          `${base}${f.id(r.pick(s.hubs).num)}?transactiontype=${r.pick(['CRYPTOTRANSFER', 'CONSENSUSSUBMITMESSAGE', 'ETHEREUMTRANSACTION'])}`,
          'transactiontype',
        ),
    ],
    [
      4,
      (r) =>
        ok(
          `${base}${f.account(r, r.pick(active))}?${r.pick(['limit=100&order=asc', 'transactions=false', 'order=asc'])}`,
          'limit/order/transactions',
        ),
    ],
    [3, (r) => bad(`${base}${r.pick(['0.0.x1', '1.2.3.4', '0x123'])}`, 'invalid id')],
    [
      2,
      (r) =>
        bad(
          `${base}${f.id(r.pick(active).num)}?${r.pick(['limit=0', 'order=up', 'timestamp=abc', 'transactiontype=nope'])}`,
          'invalid parameter',
        ),
    ],
    [2, (r) => missing(`${base}${r.pick([f.id(999_999_999), base32Encode(r.bytes(34)), '0x' + randomHex(r, 20)])}`, 'unknown account')],
  ];
  return pool(
    rng,
    categories.filter(([, g]) => canGenerate(g, rng)),
  );
}

/** The account alone (`transactions=false`): balances and staking, now or as of a time. */
function accountWithoutTransactionsMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const accounts = [...s.hubs, ...s.active, ...s.tail].filter((a) => !a.deleted);
  // the first accounts exist through the whole window; a tail account may be created within it
  const settled = [...s.hubs, ...s.active].filter((a) => !a.deleted);
  const base = '/api/v1/accounts/';
  const categories: Category[] = [
    [50, (r) => ok(`${base}${f.account(r, r.pick(accounts))}?transactions=false`, 'account, any path form')],
    [10, (r) => ok(`${base}${f.id(r.pick(s.hubs).num)}?transactions=false`, 'huge account')],
    [25, (r) => ok(`${base}${f.id(r.pick(settled).num)}?transactions=false&timestamp=lte:${f.timestamp(r)}`, 'historical balance')],
    [5, (r) => bad(`${base}${r.pick(['0.0.x1', '1.2.3.4', `${f.id(1001)}?transactions=maybe`])}`, 'invalid id or parameter')],
    [5, (r) => missing(`${base}${r.pick([f.id(999_999_999), '0x' + randomHex(r, 20)])}?transactions=false`, 'unknown account')],
  ];
  return pool(
    rng,
    categories.filter(([, g]) => canGenerate(g, rng)),
  );
}

function nftsMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const owners = s.nftOwners.filter((a) => !a.deleted);
  const top = owners.filter((a) => s.summary.topNftOwners.some(([n]) => n === a.num));
  const withSpender = s.nfts.filter((n) => n.spender !== null);
  const path = (owner: string, query = '') => `/api/v1/accounts/${owner}/nfts${query}`;
  const categories: Category[] = [
    [12, (r) => ok(path(f.id(r.pick(top).num), r.pick(['', '?limit=100', '?order=asc'])), 'huge NFT owner')],
    [20, (r) => ok(path(f.account(r, r.pick(owners))), 'NFT owner, any path form')],
    [
      12,
      (r) => {
        const n = r.pick(s.nfts);
        return ok(
          path(
            f.id(n.owner),
            r.pick([`?token.id=${f.id(n.token)}`, `?token.id=gte:${f.id(n.token)}&limit=10&order=asc`, `?token.id=lt:${f.id(n.token)}`]),
          ),
          'token.id filter',
        );
      },
    ],
    [
      10,
      (r) => {
        const n = r.pick(s.nfts);
        return ok(
          path(
            f.id(n.owner),
            r.pick([
              `?token.id=${f.id(n.token)}&serialnumber=gte:${n.serial}`,
              `?token.id=eq:${n.token}&serialnumber=lte:${n.serial}&order=asc`,
            ]),
          ),
          'serialnumber range',
        );
      },
    ],
    [
      8,
      (r) => {
        const n = r.pick(withSpender);
        return ok(
          path(f.id(n.owner), r.pick([`?spender.id=${f.id(n.spender!)}`, `?spender.id=gte:${f.id(1001)}&limit=5`])),
          'spender.id filter',
        );
      },
    ],
    [6, (r) => ok(path(f.id(r.pick(s.tail).num)), 'account with few or no NFTs')],
    [
      3,
      (r) =>
        bad(
          path(f.id(r.pick(owners).num), r.pick(['?serialnumber=5', '?token.id=ne:0.0.5', '?limit=abc', '?spender.id=ne:0.0.7'])),
          'invalid filter',
        ),
    ],
    [2, (r) => bad(path(r.pick(['0.0.x', 'abc!'])), 'invalid id')],
    [2, (r) => missing(path(r.pick([base32Encode(r.bytes(34)), '0x' + randomHex(r, 20)])), 'unknown alias or EVM address')],
  ];
  return pool(
    rng,
    categories.filter(([, g]) => canGenerate(g, rng)),
  );
}

function blocksMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const blocks = s.summary.blocks;
  const base = '/api/v1/blocks';
  const categories: Category[] = [
    [20, () => ok(base, 'latest')],
    [10, () => ok(`${base}?limit=100`, 'limit=100')],
    [5, () => ok(`${base}?order=asc`, 'oldest')],
    [10, (r) => ok(`${base}?block.number=gte:${r.int(blocks)}&limit=25&order=asc`, 'block.number range')],
    [10, (r) => ok(`${base}?block.number=lt:${r.int(blocks)}`, 'block.number upper bound')],
    [10, (r) => ok(`${base}?timestamp=lt:${f.timestamp(r)}`, 'timestamp upper bound')],
    [
      10,
      (r) => {
        const from = r.float() * 0.95;
        return ok(`${base}?timestamp=gte:${f.timestamp(r, from)}&timestamp=lt:${f.timestamp(r, from + 0.01)}&order=asc`, 'timestamp range');
      },
    ],
    [5, (r) => bad(`${base}?${r.pick(['block.number=ne:5', 'limit=0', 'timestamp=abc', 'order=up', 'foo=1'])}`, 'invalid parameter')],
  ];
  return pool(rng, categories);
}

function blockMix(rng: Rng, s: DatasetSample): MixRequest[] {
  const base = '/api/v1/blocks/';
  const categories: Category[] = [
    [40, (r) => ok(`${base}${r.pick(s.blocks).number}`, 'by number')],
    [20, (r) => ok(`${base}0x${r.pick(s.blocks).hash}`, 'by 96-hex hash')],
    [10, (r) => ok(`${base}${r.pick(s.blocks).hash}`, 'by 96-hex hash without 0x')],
    [20, (r) => ok(`${base}0x${r.pick(s.blocks).hash.slice(0, 64)}`, 'by 64-hex hash prefix')],
    [
      4,
      (r) =>
        missing(
          `${base}${r.pick([String(s.summary.blocks + 1 + r.int(1000)), '0x' + randomHex(r, 48), '0x' + randomHex(r, 32)])}`,
          'unknown block',
        ),
    ],
    [3, (r) => bad(`${base}${r.pick(['abc', '0x123', '-1'])}`, 'invalid hash or number')],
    [3, (r) => bad(`${base}${r.pick(s.blocks).number}?limit=1`, 'unknown parameter')],
  ];
  return pool(rng, categories);
}

function contractResultMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const base = '/api/v1/contracts/results/';
  const txId = (c: DatasetSample['contractResults'][number]) => {
    const seconds = BigInt(c.validStart) / 1_000_000_000n;
    const nanos = String(BigInt(c.validStart) % 1_000_000_000n).padStart(9, '0');
    return `${f.id(c.payer)}-${seconds}-${nanos}`;
  };
  const topLevel = s.contractResults.filter((c) => c.nonce === 0);
  const children = s.contractResults.filter((c) => c.nonce > 0);
  const categories: Category[] = [
    [40, (r) => ok(`${base}${txId(r.pick(topLevel))}`, 'by transaction id')],
    [35, (r) => ok(`${base}0x${r.pick(s.contractResults).hash}`, 'by hash')],
    [5, (r) => ok(`${base}${r.pick(s.contractResults).hash}?hbar=false`, 'by hash without 0x, hbar=false')],
    [
      8,
      (r) => {
        const child = r.pick(children);
        return ok(`${base}${txId(child)}?nonce=${child.nonce}`, 'child by transaction id and nonce');
      },
    ],
    [6, (r) => missing(`${base}${r.pick(['0x' + randomHex(r, 32), `${f.id(1001)}-1600000000-000000001`])}`, 'unknown hash or id')],
    [6, (r) => bad(`${base}${r.pick(['0.0.1-abc-1', '0x1234', `${txId(r.pick(topLevel))}?nonce=-1`])}`, 'invalid id or nonce')],
  ];
  return pool(
    rng,
    categories.filter(([, g]) => canGenerate(g, rng)),
  );
}

function contractResultByTimestampMix(rng: Rng, s: DatasetSample, f: Forms): MixRequest[] {
  const path = (contract: string, ts: string) => `/api/v1/contracts/${contract}/results/${ts}`;
  const ts = (c: DatasetSample['contractResults'][number]) => formatTimestamp(BigInt(c.timestamp))!;
  const withEvm = s.contractResults.filter((c) => c.contractEvm);
  const categories: Category[] = [
    [
      50,
      (r) => {
        const c = r.pick(s.contractResults);
        return ok(path(f.id(c.contract), ts(c)), 'contract id');
      },
    ],
    [
      10,
      (r) => {
        const c = r.pick(s.contractResults);
        return ok(path(String(c.contract), ts(c)), 'contract num');
      },
    ],
    [
      20,
      (r) => {
        const c = r.pick(withEvm);
        return ok(path('0x' + c.contractEvm, ts(c)), 'contract EVM address');
      },
    ],
    [
      10,
      (r) => {
        const c = r.pick(s.contractResults);
        return ok(path(f.id(c.payer), ts(c)), 'payer id');
      },
    ],
    [
      5,
      (r) => {
        const c = r.pick(s.contractResults);
        return missing(path(f.id(c.contract), formatTimestamp(BigInt(c.timestamp) + 1n)!), 'no result at that timestamp');
      },
    ],
    [
      5,
      (r) =>
        bad(
          r.pick([path('0.0.x', '1.2'), path(f.id(1001), 'abc'), `${path(f.id(1001), '1.000000001')}?limit=2`]),
          'invalid id, timestamp or parameter',
        ),
    ],
  ];
  return pool(
    rng,
    categories.filter(([, g]) => canGenerate(g, rng)),
  );
}

/** A category whose sample list is empty (a tiny dataset) is left out of the mix. */
function canGenerate(generate: Generator, rng: Rng): boolean {
  try {
    generate(rng);
    return true;
  } catch {
    return false;
  }
}

export function buildMixes(sample: DatasetSample, seed: number): Record<TargetName, MixRequest[]> {
  const f = new Forms(sample);
  const rng = (stream: number) => new Rng(seed, 100 + stream);
  const { shard, realm } = sample.summary;
  const accountIds = [...sample.hubs, ...sample.active, ...sample.tail].map((a) =>
    encodeEntityId(BigInt(shard), BigInt(realm), BigInt(a.num)),
  );
  return {
    accounts: accountsMix(rng(1), sample, f),
    'account-without-transactions': accountWithoutTransactionsMix(rng(7), sample, f),
    'account-nfts': nftsMix(rng(2), sample, f),
    blocks: blocksMix(rng(3), sample, f),
    block: blockMix(rng(4), sample),
    'contract-result': contractResultMix(rng(5), sample, f),
    'contract-result-by-timestamp': contractResultByTimestampMix(rng(6), sample, f),
    'ceiling-json': [ok(CEILING_JSON_PATH, 'trivial JSON')],
    'ceiling-pk': accountIds.map((n) => ok(`${CEILING_PK_PATH}/${n}`, 'primary-key SELECT')),
  };
}

/**
 * Hot mixes: the traffic of real clients and of the reference's own k6 scenarios, where a few URLs
 * carry most requests (the newest blocks, the popular accounts, NFT owners and contract results).
 * Per endpoint a short list of popular URLs, drawn with Zipf weights (the first ~1/rank of the
 * picks: with 16 URLs the first takes 30%, the last 2%), 2,000 requests long like the cold mixes.
 */
export const HOT_URLS = 16;

function zipfPool(rng: Rng, urls: MixRequest[]): MixRequest[] {
  const list = urls.slice(0, HOT_URLS);
  const weights = list.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: POOL_SIZE }, () => list[rng.weighted(weights, total)]!);
}

export function buildHotMixes(sample: DatasetSample, seed: number): Partial<Record<TargetName, MixRequest[]>> {
  const f = new Forms(sample);
  const rng = (stream: number) => new Rng(seed, 200 + stream);
  const popular = [...sample.hubs, ...sample.active].filter((a) => !a.deleted);
  const owners = sample.nftOwners.filter((a) => !a.deleted);
  const newest = [...sample.blocks].sort((a, b) => b.number - a.number).slice(0, HOT_URLS / 2);
  const txId = (c: ContractResultSample) => {
    const seconds = BigInt(c.validStart) / 1_000_000_000n;
    const nanos = String(BigInt(c.validStart) % 1_000_000_000n).padStart(9, '0');
    return `${f.id(c.payer)}-${seconds}-${nanos}`;
  };
  const results = sample.contractResults.slice(0, HOT_URLS);
  return {
    accounts: zipfPool(
      rng(1),
      popular.map((a) => ok(`/api/v1/accounts/${f.id(a.num)}`, 'popular account')),
    ),
    'account-without-transactions': zipfPool(
      rng(2),
      popular.map((a) => ok(`/api/v1/accounts/${f.id(a.num)}?transactions=false`, 'popular account alone')),
    ),
    'account-nfts': zipfPool(
      rng(3),
      owners.map((a) => ok(`/api/v1/accounts/${f.id(a.num)}/nfts`, 'popular NFT owner')),
    ),
    blocks: zipfPool(
      rng(4),
      ['', '?limit=1', '?limit=10', '?limit=100', '?order=desc&limit=5'].map((q) => ok(`/api/v1/blocks${q}`, 'newest blocks')),
    ),
    block: zipfPool(
      rng(5),
      newest.flatMap((b) => [
        ok(`/api/v1/blocks/${b.number}`, 'newest block by number'),
        ok(`/api/v1/blocks/0x${b.hash}`, 'newest block by hash'),
      ]),
    ),
    'contract-result': zipfPool(
      rng(6),
      results.map((c, i) =>
        i % 2 === 0 || c.nonce > 0
          ? ok(`/api/v1/contracts/results/0x${c.hash}`, 'popular result by hash')
          : ok(`/api/v1/contracts/results/${txId(c)}`, 'popular result by id'),
      ),
    ),
    'contract-result-by-timestamp': zipfPool(
      rng(7),
      results.map((c) => ok(`/api/v1/contracts/${f.id(c.contract)}/results/${formatTimestamp(BigInt(c.timestamp))!}`, 'popular result')),
    ),
  };
}
