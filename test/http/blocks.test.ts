import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, get, useHarness } from '../support/harness.js';

const BLOCKS = 23;
const START = 1_676_540_001_000_000_000n;
const hashOf = (i: number) => i.toString(16).padStart(2, '0').repeat(48);

function setup() {
  return {
    recordFiles: Array.from({ length: BLOCKS }, (_, i) => ({
      index: i,
      consensus_start: (START + BigInt(i) * 1000n).toString(),
      consensus_end: (START + BigInt(i) * 1000n + 999n).toString(),
      hash: hashOf(i),
      prev_hash: i === 0 ? '0'.repeat(96) : hashOf(i - 1),
      gas_used: i % 4 === 0 ? -1 : i * 10,
      logs_bloom: i % 3 === 0 ? null : i % 3 === 1 ? '' : '0x01',
      hapi_version_major: i === 5 ? null : 0,
      bytes: i % 2 === 0 ? null : [1, 2, 3],
      size: i % 2 === 0 ? 100 + i : null,
    })),
  };
}

describe('blocks', () => {
  const harness = useHarness();

  it('renders every field as the reference does', async () => {
    await harness().prepare(setup());
    const { status, headers, body } = await get(harness(), '/api/v1/blocks?block.number=gte:4&block.number=lte:7&order=asc');
    assert.equal(status, 200);
    assert.equal(headers['cache-control'], 'public, max-age=1');
    const [b4, b5, b6] = body.blocks;
    assert.equal(b4.gas_used, null, '-1 means unknown');
    assert.equal(b5.gas_used, 50);
    assert.equal(b4.hapi_version, '0.11.0');
    assert.equal(b5.hapi_version, null, 'a NULL part gives null');
    assert.equal(b5.logs_bloom, '0x' + '0'.repeat(510) + '01');
    assert.equal(b4.logs_bloom, '0x', 'empty bloom');
    assert.equal(b6.logs_bloom, null, 'no bloom');
    assert.equal(b5.size, 3, 'size from bytes when NULL');
    assert.equal(b4.size, 104);
    assert.deepEqual(b4.timestamp, { from: '1676540001.000004000', to: '1676540001.000004999' });
    assert.equal(b5.hash, '0x' + hashOf(5));
    assert.equal(b5.previous_hash, '0x' + hashOf(4));
    assert.equal(b4.number, 4);
  });

  it('pages through all blocks in both orders without gaps or repeats', async () => {
    await harness().prepare(setup());
    for (const order of ['asc', 'desc']) {
      const seen: number[] = [];
      let url: string | null = `/api/v1/blocks?limit=4&order=${order}`;
      while (url) {
        const res = await get(harness(), url);
        assert.equal(res.status, 200);
        seen.push(...res.body.blocks.map((b: { number: number }) => b.number));
        url = res.body.links.next;
        if (url) assert.equal(res.headers.link, `<${url}>; rel="next"`);
        else assert.equal(res.headers.link, undefined);
      }
      const expected = Array.from({ length: BLOCKS }, (_, i) => i);
      assert.deepEqual(seen, order === 'asc' ? expected : expected.reverse());
    }
  });

  it('filters by block number and timestamp with every operator', async () => {
    await harness().prepare(setup());
    const numbers = async (qs: string) =>
      (await get(harness(), `/api/v1/blocks?order=asc&${qs}`)).body.blocks.map((b: { number: number }) => b.number);
    assert.deepEqual(await numbers('block.number=3'), [3]);
    assert.deepEqual(await numbers('block.number=eq:0x0a'), [10]);
    assert.deepEqual(await numbers('block.number=gt:20'), [21, 22]);
    assert.deepEqual(await numbers('block.number=gte:21&block.number=lt:22'), [21]);
    assert.deepEqual(await numbers('block.number=lte:1'), [0, 1]);
    const ts = (i: number) => `1676540001.${String(i * 1000 + 999).padStart(9, '0')}`;
    assert.deepEqual(await numbers(`timestamp=${ts(6)}`), [6]);
    assert.deepEqual(await numbers(`timestamp=gt:${ts(20)}`), [21, 22]);
    assert.deepEqual(await numbers(`timestamp=gte:${ts(21)}&timestamp=ne:${ts(22)}`), [21]);
    assert.deepEqual(await numbers(`timestamp=lt:${ts(1)}`), [0]);
    assert.deepEqual(await numbers(`timestamp=lte:${ts(1)}&block.number=gt:0`), [1]);
  });

  it('sorts by the column of the first range filter and ends links at an empty range', async () => {
    await harness().prepare(setup());
    const res = await get(harness(), '/api/v1/blocks?limit=2&block.number=gt:19&order=desc');
    assert.deepEqual(
      res.body.blocks.map((b: { number: number }) => b.number),
      [22, 21],
    );
    assert.equal(res.body.links.next, '/api/v1/blocks?limit=2&block.number=gt:19&block.number=lt:21&order=desc');
    const last = await get(harness(), '/api/v1/blocks?limit=2&block.number=gt:20&order=desc');
    assert.equal(last.body.links.next, null);
  });

  it('rejects bad filters', async () => {
    for (const qs of [
      'block.number=ne:1',
      'block.number=-1',
      'block.number=12345678901234567890',
      'block.number=0xZZ',
      'timestamp=1.1234567890',
      'limit=101x',
      'order=up',
    ]) {
      const key = qs.split('=')[0]!;
      const res = await get(harness(), `/api/v1/blocks?${qs}`);
      assert.equal(res.status, 400, qs);
      assert.deepEqual(res.body, errorOf(`Invalid parameter: ${key}`), qs);
    }
  });

  it('looks a block up by number and by both hash lengths', async () => {
    await harness().prepare(setup());
    for (const id of ['7', hashOf(7), '0x' + hashOf(7), hashOf(7).slice(0, 64), '0x' + hashOf(7).slice(0, 64).toUpperCase()]) {
      const res = await get(harness(), `/api/v1/blocks/${id}`);
      assert.equal(res.status, 200, id);
      assert.equal(res.body.number, 7);
      assert.equal(res.headers['cache-control'], 'public, max-age=600');
    }
  });

  it('answers 404 for absent or ambiguous blocks and 400 for malformed ones', async () => {
    await harness().prepare({
      recordFiles: [
        { index: 1, hash: 'ab'.repeat(32) + '01'.repeat(16), consensus_end: 10 },
        { index: 2, hash: 'ab'.repeat(32) + '02'.repeat(16), consensus_end: 20 },
      ],
    });
    assert.deepEqual((await get(harness(), `/api/v1/blocks/${'ab'.repeat(32)}`)).body, errorOf('Not found'));
    assert.equal((await get(harness(), `/api/v1/blocks/${'ab'.repeat(32)}${'01'.repeat(16)}`)).status, 200);
    assert.equal((await get(harness(), '/api/v1/blocks/99')).status, 404);
    for (const id of ['abc', '0x12', '-1', '1.5', '9223372036854775808', 'ab'.repeat(40)]) {
      assert.deepEqual((await get(harness(), `/api/v1/blocks/${id}`)).body, errorOf('Invalid parameter: hashOrNumber'), id);
    }
    assert.deepEqual((await get(harness(), '/api/v1/blocks/1?limit=1')).body, errorOf('Unknown query parameter: limit'));
  });
});

describe('blocks with timestamps beyond int64', () => {
  const harness = useHarness();
  it('treats 10-digit seconds past the int64 range as the largest timestamp', async () => {
    await harness().prepare(setup());
    assert.equal((await get(harness(), '/api/v1/blocks?timestamp=gt:9999999999.999999999')).body.blocks.length, 0);
    assert.equal((await get(harness(), '/api/v1/blocks?timestamp=lt:9999999999.999999999&limit=100')).body.blocks.length, BLOCKS);
    assert.equal((await get(harness(), '/api/v1/blocks?timestamp=9999999999')).status, 200);
  });
});

describe('blocks: response.includeHostInLink', () => {
  const harness = useHarness();

  it("writes the next link with the scheme, the request's host name and the configured port", async () => {
    await harness().prepare(setup(), { port: 8080, response: { includeHostInLink: true } });
    const { body, headers } = await get(harness(), '/api/v1/blocks?limit=2', { host: 'mirror.example:9999' });
    const next = `http://mirror.example:8080/api/v1/blocks?limit=2&block.number=lt:${BLOCKS - 2}`;
    assert.equal(body.links.next, next);
    assert.equal(headers.link, `<${next}>; rel="next"`);
    const v6 = await get(harness(), '/api/v1/blocks?limit=2', { host: '[::1]:5551' });
    assert.equal(v6.body.links.next, `http://[::1]:8080/api/v1/blocks?limit=2&block.number=lt:${BLOCKS - 2}`);
  });

  it('leaves the link relative for a Host header that is not a plain host name', async () => {
    await harness().prepare(setup(), { port: 8080, response: { includeHostInLink: true } });
    for (const host of ['evil.example/phish?', 'user@evil.example', 'evil.example\\x', '-bad-.example', 'a..b']) {
      const { body } = await get(harness(), '/api/v1/blocks?limit=2', { host });
      assert.equal(body.links.next, `/api/v1/blocks?limit=2&block.number=lt:${BLOCKS - 2}`, host);
    }
  });
});
