import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecodedFileCache } from '../../src/routes/contract-results/gasPrice.js';

describe('DecodedFileCache', () => {
  it('loads a key once, null values included', async () => {
    const cache = new DecodedFileCache();
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    assert.equal(await cache.get('a', load), null);
    assert.equal(await cache.get('a', load), null);
    assert.equal(loads, 1);
  });

  it('drops the least recently used key beyond its capacity', async () => {
    const cache = new DecodedFileCache(2);
    const loaded: string[] = [];
    const get = (key: string) =>
      cache.get(key, async () => {
        loaded.push(key);
        return key.toUpperCase();
      });
    assert.equal(await get('a'), 'A');
    await get('b');
    await get('a'); // a is now the most recently used
    await get('c'); // drops b
    await get('a');
    await get('b');
    assert.deepEqual(loaded, ['a', 'b', 'c', 'b']);
  });
});
