/** The record stream walker's listing: names kept between steps, listings cut at their limit. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LocalSource } from '../../src/ingest/sources/local.js';
import type { ListOptions } from '../../src/ingest/sources/source.js';
import { RecordStreamWalker } from '../../src/ingest/walkers/recordStreamWalker.js';
import { recordStreamBucket } from '../support/streamBuckets.js';
import { testAddressBook } from '../support/streamGroundTruth.js';

const FIRST = '2022-07-13T08_46_08.041986003Z.rcd.gz';
const SECOND = '2022-07-13T08_46_11.304284003Z.rcd.gz';

/** A folder source counting its listings. */
class CountingSource extends LocalSource {
  lists = 0;
  override list(prefix: string, options?: ListOptions) {
    this.lists++;
    return super.list(prefix, options);
  }
}

function walkerOn(root: string, listingLimit?: number) {
  const source = new CountingSource(root);
  const walker = new RecordStreamWalker({
    source,
    book: testAddressBook('test-v6-sidecar-4n.bin'),
    network: null,
    shardRealm: { shard: 0n, realm: 0n },
    listingLimit,
  });
  return { source, walker };
}

describe('record stream walker', () => {
  it('lists the node folders once for the names it then walks, and again when it runs out', async (t) => {
    const bucket = recordStreamBucket('v6');
    t.after(() => bucket.dispose());
    const { source, walker } = walkerOn(bucket.root);
    assert.deepEqual(await walker.candidates(null), [FIRST, SECOND]);
    const perListing = source.lists;
    assert.equal(perListing, 8, '4 nodes, ACCOUNT_ID and NODE_ID folders each');
    assert.deepEqual(await walker.candidates(FIRST), [SECOND]);
    assert.equal(source.lists, perListing, 'the second name came from the first listing');
    // no name known after the last: listed again, and nothing there
    assert.deepEqual(await walker.candidates(SECOND), []);
    assert.equal(source.lists, 2 * perListing);
  });

  for (const limit of [1, 2, 3]) {
    it(`finds every file when each listing is cut at ${limit} object${limit > 1 ? 's' : ''}`, async (t) => {
      const bucket = recordStreamBucket('v6');
      t.after(() => bucket.dispose());
      const { walker } = walkerOn(bucket.root, limit);
      const [first] = await walker.candidates(null);
      assert.equal(first, FIRST);
      const [second] = await walker.candidates(FIRST);
      assert.equal(second, SECOND);
      assert.deepEqual(await walker.candidates(SECOND), []);
    });
  }
});
