import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { get, useHarness } from '../support/harness.js';
import { sequentialScans, sortedScansInGenericPlans, statementsPlannedEachTime } from '../support/plans.js';

const ROWS = 50_000;
const HASH = (i: number) => createHash('sha384').update(String(i)).digest('hex');

describe('blocks queries are index-backed', () => {
  const harness = useHarness();

  before(async () => {
    const h = harness();
    await h.prepare({});
    await h.db.exec(`insert into record_file (index, consensus_start, consensus_end, count, hash, prev_hash, name, gas_used, file_hash, load_start, load_end, version, digest_algorithm)
      select i, 1000000000::bigint * i, 1000000000::bigint * i + 999, 3, encode(sha384(i::text::bytea), 'hex'), encode(sha384((i - 1)::text::bytea), 'hex'), 'f' || i, 0, encode(sha384(i::text::bytea), 'hex'), i, i + 1, 6, 0
      from generate_series(1, ${ROWS}) as i`);
    await h.db.exec('analyze record_file');
  });

  for (const url of [
    '/api/v1/blocks',
    '/api/v1/blocks?order=asc&limit=100',
    '/api/v1/blocks?block.number=gte:100&block.number=lt:200',
    '/api/v1/blocks?timestamp=gt:20000&timestamp=lte:30000&order=asc',
    `/api/v1/blocks/${ROWS / 2}`,
    `/api/v1/blocks/${HASH(ROWS / 2)}`,
    `/api/v1/blocks/0x${HASH(ROWS / 2).slice(0, 64)}`,
  ]) {
    it(url, async () => {
      const queries = await harness().captureQueries(async () => assert.equal((await get(harness(), url)).status, 200));
      assert.ok(queries.length > 0);
      assert.deepEqual(await sequentialScans(harness().db, queries, ['record_file']), []);
      assert.deepEqual(await sortedScansInGenericPlans(harness().db, queries), []);
      // a statement planned at every execution cost PostgreSQL three times its lookup (tools/bench/README.md)
      assert.deepEqual(await statementsPlannedEachTime(harness().db, queries), []);
    });
  }
});
