import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { get, useHarness } from '../support/harness.js';

interface Model {
  token: number;
  serial: number;
  spender: number | null;
}

const OWNER = 1001;
const SERIALS: Record<number, number[]> = {
  100: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  101: [1, 2, 3],
  102: [2, 4, 6, 8, 10, 12],
  103: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  104: [5, 6, 7],
};
const spenderOf = (serial: number) => (serial % 3 === 0 ? 3000 : serial % 3 === 1 ? 3001 : null);
const OWNED: Model[] = Object.entries(SERIALS).flatMap(([token, serials]) =>
  serials.map((serial) => ({ token: Number(token), serial, spender: spenderOf(serial) })),
);

/** Fixture: the owner's NFTs interleaved with another owner's in the same tokens. */
function setup() {
  const other = Object.keys(SERIALS).flatMap((token) =>
    [20, 21, 22].map((serial) => ({ account_id: '0.0.2001', token_id: `0.0.${token}`, serial_number: serial, spender: '0.0.3000' })),
  );
  const owned = OWNED.map((n) => ({
    account_id: `0.0.${OWNER}`,
    token_id: `0.0.${n.token}`,
    serial_number: n.serial,
    spender: n.spender === null ? null : `0.0.${n.spender}`,
  }));
  return { nfts: [...owned, ...other] };
}

/** (token, serial) comparison, for the range-over-the-pair semantics of a serial range. */
const cmp = (n: Model, token: number, serial: number) => (n.token !== token ? n.token - token : n.serial - serial);

const CASES: [string, (n: Model) => boolean][] = [
  ['', () => true],
  ['token.id=gte:101&token.id=lt:104', (n) => n.token >= 101 && n.token < 104],
  ['token.id=gt:0.0.100&token.id=lte:103', (n) => n.token > 100 && n.token <= 103],
  ['token.id=lte:102', (n) => n.token <= 102],
  ['token.id=103', (n) => n.token === 103],
  ['token.id=gte:100&token.id=lte:103&serialnumber=gt:3&serialnumber=lt:5', (n) => cmp(n, 100, 3) > 0 && cmp(n, 103, 5) < 0],
  ['token.id=gte:101&token.id=lte:104&serialnumber=gte:2&serialnumber=lte:6', (n) => cmp(n, 101, 2) >= 0 && cmp(n, 104, 6) <= 0],
  ['token.id=gte:102&token.id=lte:102&serialnumber=gt:2&serialnumber=lt:12', (n) => n.token === 102 && n.serial > 2 && n.serial < 12],
  ['token.id=gte:101&serialnumber=gte:2', (n) => cmp(n, 101, 2) >= 0],
  ['token.id=lte:103&serialnumber=lte:4', (n) => cmp(n, 103, 4) <= 0],
  ['token.id=gte:100&token.id=lt:104&serialnumber=gt:7', (n) => cmp(n, 100, 7) > 0 && n.token < 104],
  ['token.id=102&serialnumber=gt:4', (n) => n.token === 102 && n.serial > 4],
  ['token.id=100&serialnumber=gte:2&serialnumber=lt:8', (n) => n.token === 100 && n.serial >= 2 && n.serial < 8],
  ['token.id=gt:100&serialnumber=3', (n) => n.token > 100 && n.serial === 3],
  ['spender.id=3000', (n) => n.spender === 3000],
  ['spender.id=3000&spender.id=3001', (n) => n.spender !== null],
  ['spender.id=gte:3001', (n) => n.spender !== null && n.spender >= 3001],
  ['spender.id=gt:2999&spender.id=lt:3001', (n) => n.spender === 3000],
  [
    'token.id=gte:100&token.id=lte:104&serialnumber=gte:2&serialnumber=lte:8&spender.id=3001',
    (n) => cmp(n, 100, 2) >= 0 && cmp(n, 104, 8) <= 0 && n.spender === 3001,
  ],
  ['token.id=gte:101&serialnumber=gt:1&spender.id=lte:3000', (n) => cmp(n, 101, 1) > 0 && n.spender === 3000],
];

const keyOf = (n: { token: number; serial: number }) => `0.0.${n.token}/${n.serial}`;

describe('account NFTs: paging', () => {
  const harness = useHarness();
  before(async () => harness().prepare(setup()));

  async function pageThrough(firstUrl: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let url: string | null = firstUrl;
    for (let pages = 0; url; pages++) {
      assert.ok(pages <= OWNED.length + 1, `no end after ${pages} pages: ${url}`);
      const res = await get(harness(), url);
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      const page: { token_id: string; serial_number: number; account_id: string }[] = res.body.nfts;
      assert.ok(page.length <= limit, url);
      for (const nft of page) assert.equal(nft.account_id, `0.0.${OWNER}`);
      seen.push(...page.map((n) => `${n.token_id}/${n.serial_number}`));
      const next: string | null = res.body.links.next;
      assert.equal(res.headers.link, next === null ? undefined : `<${next}>; rel="next"`);
      url = next;
    }
    return seen;
  }

  for (const [filter, matches] of CASES) {
    for (const order of ['asc', 'desc'] as const) {
      it(`${filter || 'no filter'} (${order})`, async () => {
        const expected = OWNED.filter(matches).map(keyOf);
        assert.ok(expected.length > 0, 'the case selects something');
        if (order === 'desc') expected.reverse();
        const base = `/api/v1/accounts/0.0.${OWNER}/nfts?${filter ? filter + '&' : ''}order=${order}`;
        const all = await get(harness(), `${base}&limit=100`);
        assert.deepEqual(
          all.body.nfts.map((n: { token_id: string; serial_number: number }) => `${n.token_id}/${n.serial_number}`),
          expected,
          'one page',
        );
        for (const limit of [1, 2, 5]) {
          assert.deepEqual(await pageThrough(`${base}&limit=${limit}`, limit), expected, `limit ${limit}`);
        }
      });
    }
  }

  it('pages through the default page size and the default order', async () => {
    const seen = await pageThrough(`/api/v1/accounts/${OWNER}/nfts`, 25);
    assert.deepEqual(seen, OWNED.map(keyOf).reverse());
  });
});
