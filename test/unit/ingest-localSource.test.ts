import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSource } from '../../src/ingest/sources/local.js';

describe('local stream source', () => {
  let root: string;
  let source: LocalSource;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'lqs-local-source-'));
    await mkdir(join(root, 'recordstreams', 'record0.0.3', 'sidecar'), { recursive: true });
    await mkdir(join(root, 'recordstreams', 'record0.0.10'), { recursive: true });
    for (const name of ['b.rcd', 'a.rcd_sig', 'a.rcd', 'B.rcd']) await writeFile(join(root, 'recordstreams', 'record0.0.3', name), name);
    source = new LocalSource(root);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('lists folders and files under a prefix in the byte order S3 uses', async () => {
    assert.deepEqual(await source.folders('recordstreams/'), ['recordstreams/record0.0.10/', 'recordstreams/record0.0.3/']);
    const keys = (await source.list('recordstreams/record0.0.3/')).map((o) => o.key);
    assert.deepEqual(keys, [
      'recordstreams/record0.0.3/B.rcd',
      'recordstreams/record0.0.3/a.rcd',
      'recordstreams/record0.0.3/a.rcd_sig',
      'recordstreams/record0.0.3/b.rcd',
    ]);
  });

  it('lists after a key and up to a limit', async () => {
    const keys = (await source.list('recordstreams/record0.0.3/', { startAfter: 'recordstreams/record0.0.3/a.rcd', limit: 1 })).map(
      (o) => o.key,
    );
    assert.deepEqual(keys, ['recordstreams/record0.0.3/a.rcd_sig']);
  });

  it('reads a file, and answers null or an empty listing for what is not there', async () => {
    assert.equal((await source.read('recordstreams/record0.0.3/a.rcd'))?.toString(), 'a.rcd');
    assert.equal(await source.read('recordstreams/record0.0.3/none.rcd'), null);
    assert.deepEqual(await source.list('nothing/'), []);
    assert.deepEqual(await source.folders('nothing/'), []);
  });

  it('refuses keys that would leave its root', async () => {
    await assert.rejects(source.read('../etc/passwd'), /not a key under the source's root/);
    await assert.rejects(source.read('/etc/passwd'), /not a key under the source's root/);
    await assert.rejects(source.list('recordstreams'), /ends with '\/'/);
  });
});
