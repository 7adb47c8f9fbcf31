/**
 * The S3 source against a private S3-compatible server (s3rver, started by the test): a copy of real
 * stream files in both record-stream layouts and blocks, uploaded into a bucket, must list and read
 * exactly as the local source over the same tree does.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSource } from '../../src/ingest/sources/local.js';
import { defaultConfig } from '../../src/config.js';
import { resolveIngestion } from '../../src/ingest/setup.js';
import { openStreamSource } from '../../src/ingest/sources/open.js';
import { parseS3Url, S3Source, type S3SourceOptions, S3SourceError } from '../../src/ingest/sources/s3.js';
import type { StreamSource } from '../../src/ingest/sources/source.js';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import { acceptRecordFile } from '../../src/ingest/verification/acceptRecordFile.js';
import { parseAddressBook } from '../../src/ingest/verification/addressBook.js';
import { reachConsensus } from '../../src/ingest/verification/consensus.js';
import { writeStream } from '../../tools/stream/writeStream.js';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../support/s3Server.js';
import { testBookPath } from '../support/streamBuckets.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

const BUCKET = 'lqs-streams';
/** holds the same tree under `mainnet/` */
const PREFIXED = 'lqs-prefixed';
const AWS_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
];

/** A bucket tree: real files in both record-stream layouts, their sidecars, blocks, and names that sort differently by bytes and by locale. */
async function makeTree(root: string): Promise<void> {
  await cp(join(STREAMS_DIR, 'recordstreams', 'v6'), join(root, 'recordstreams'), { recursive: true });
  await cp(join(STREAMS_DIR, 'hip679', 'provider-node-id'), join(root, 'demo'), { recursive: true });
  await cp(join(STREAMS_DIR, 'blockstreams', 'block'), join(root, 'demo', 'block'), { recursive: true });
  await mkdir(join(root, 'extra', 'record0.0.10'), { recursive: true });
  await mkdir(join(root, 'extra', 'record0.0.3'), { recursive: true });
  for (const name of ['B.rcd', 'a.rcd', 'a.rcd.gz', 'a.rcd_sig', 'record0.0.10/x', 'record0.0.3/x']) {
    await writeFile(join(root, 'extra', name), `content of ${name}`);
  }
}

/** Every folder prefix of the tree, walked through `source.folders` from the root. */
async function walkFolders(source: StreamSource, prefix = ''): Promise<string[]> {
  const out = [prefix];
  for (const folder of await source.folders(prefix)) out.push(...(await walkFolders(source, folder)));
  return out;
}

const keysOf = (objects: { key: string }[]) => objects.map((o) => o.key);

describe('S3 stream source against a local S3-compatible server', () => {
  let server: TestS3Server;
  let treeRoot: string;
  let local: LocalSource;
  const saved = new Map<string, string | undefined>();
  const opened: StreamSource[] = [];
  let base: S3SourceOptions;

  async function s3(url: string, options: S3SourceOptions = {}): Promise<S3Source> {
    const source = await S3Source.open(url, { ...base, ...options });
    opened.push(source);
    return source;
  }

  before(async () => {
    // the AWS credential chain reads the environment: s3rver's account, and never the instance metadata service
    for (const name of [...AWS_VARIABLES, 'AWS_EC2_METADATA_DISABLED', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE']) {
      saved.set(name, process.env[name]);
      delete process.env[name];
    }
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
    treeRoot = await mkdtemp(join(tmpdir(), 'lqs-s3-tree-'));
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(treeRoot, 'no-credentials');
    process.env.AWS_CONFIG_FILE = join(treeRoot, 'no-config');
    const tree = join(treeRoot, 'tree');
    await makeTree(tree);
    local = new LocalSource(tree);
    server = await startS3Server([BUCKET, PREFIXED]);
    base = { endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true };
    const uploaded = await server.upload(BUCKET, tree);
    assert.equal(await server.upload(PREFIXED, tree, 'mainnet/'), uploaded);
    // the empty objects consoles create for folders: no file of the local tree matches them
    await server.put(BUCKET, 'recordstreams/', Buffer.alloc(0));
    await server.put(PREFIXED, 'mainnet/demo/block/', Buffer.alloc(0));
  });

  after(async () => {
    for (const source of opened) await source.close();
    await server?.stop();
    if (treeRoot) await rm(treeRoot, { recursive: true, force: true });
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('parses s3://bucket/prefix and refuses what is not one', () => {
    assert.deepEqual(parseS3Url('s3://hedera-mainnet-streams'), { bucket: 'hedera-mainnet-streams', prefix: '' });
    assert.deepEqual(parseS3Url('s3://b-1/recordstreams'), { bucket: 'b-1', prefix: 'recordstreams/' });
    assert.deepEqual(parseS3Url('s3://b-1/a/b/'), { bucket: 'b-1', prefix: 'a/b/' });
    assert.throws(() => parseS3Url('s3://'), /not an S3 location/);
    assert.throws(() => parseS3Url('s3://Bad_Bucket/x'), /not a bucket name/);
  });

  for (const [label, url] of [
    ['the bucket', `s3://${BUCKET}`],
    ['a prefix of the bucket', `s3://${PREFIXED}/mainnet/`],
  ] as const) {
    it(`over ${label}: the same folders, listings (with sizes) and bytes as the local source`, async () => {
      const source = await s3(url);
      assert.equal(source.description, `${url.replace(/\/?$/, '/')}`);
      const folders = await walkFolders(source);
      assert.deepEqual(folders, await walkFolders(local));
      assert.ok(folders.includes('recordstreams/record0.0.3/sidecar/'), 'the ACCOUNT_ID layout with its sidecars');
      assert.ok(folders.includes('demo/0/0/record/sidecar/'), 'the NODE_ID layout with its sidecars');
      assert.ok(folders.includes('demo/block/0000/0000/0000/0000/'), 'the block layout');
      assert.deepEqual(await source.folders('extra/'), ['extra/record0.0.10/', 'extra/record0.0.3/']);
      let files = 0;
      for (const prefix of folders) {
        const listed = await source.list(prefix);
        assert.deepEqual(keysOf(listed), keysOf(await local.list(prefix)), prefix);
        for (const object of listed) {
          const bytes = await source.read(object.key);
          assert.ok(bytes, object.key);
          assert.deepEqual(bytes, await local.read(object.key), object.key);
          assert.equal(object.size, (await stat(join(treeRoot, 'tree', object.key))).size, object.key);
          files++;
        }
      }
      assert.ok(files >= 30, `${files} files compared`);
      assert.deepEqual(keysOf(await source.list('extra/')), ['extra/B.rcd', 'extra/a.rcd', 'extra/a.rcd.gz', 'extra/a.rcd_sig']);
    });
  }

  it('takes the region from the AWS chain, else us-east-1, and signs for it', async () => {
    const defaulted = await S3Source.open(`s3://${BUCKET}`, { endpoint: server.endpoint, forcePathStyle: true });
    opened.push(defaulted);
    let from = server.requests.length;
    await defaulted.list('extra/');
    assert.match(String(server.requests[from]?.headers.authorization), /Credential=S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request/);
    process.env.AWS_REGION = 'eu-west-1';
    try {
      const fromChain = await S3Source.open(`s3://${BUCKET}`, { endpoint: server.endpoint, forcePathStyle: true });
      opened.push(fromChain);
      from = server.requests.length;
      assert.deepEqual(keysOf(await fromChain.list('extra/')), keysOf(await local.list('extra/')));
      assert.match(String(server.requests[from]?.headers.authorization), /Credential=S3RVER\/\d{8}\/eu-west-1\/s3\/aws4_request/);
    } finally {
      delete process.env.AWS_REGION;
    }
  });

  it('startAfter and limit give what the local source gives, across pages of 2 keys', async () => {
    const source = await s3(`s3://${PREFIXED}/mainnet`, { pageSize: 2 });
    for (const prefix of ['recordstreams/record0.0.3/', 'demo/0/0/record/', 'extra/', '']) {
      const all = keysOf(await local.list(prefix));
      const starts = [undefined, '', ...all, `${prefix}2022-07-13T08_46_09`, `${prefix}zzz`, 'a'];
      for (const startAfter of starts) {
        for (const limit of [undefined, 1, 2, 3, 5, 100]) {
          const options = { startAfter, limit };
          assert.deepEqual(
            keysOf(await source.list(prefix, options)),
            keysOf(await local.list(prefix, options)),
            `${prefix} ${JSON.stringify(options)}`,
          );
        }
      }
    }
  });

  it('answers null for a missing key, an empty listing for a missing folder, and refuses keys outside its root', async () => {
    const source = await s3(`s3://${PREFIXED}/mainnet/`);
    for (const s of [source, local]) {
      assert.equal(await s.read('recordstreams/record0.0.3/2099-01-01T00_00_00Z.rcd.gz'), null);
      assert.equal(await s.read('demo/block/0000/0000/0000/0000/009.blk.zstd'), null);
      assert.deepEqual(await s.list('nothing/'), []);
      assert.deepEqual(await s.folders('nothing/'), []);
      await assert.rejects(s.read('../x'), /not a key under the source's root/);
      await assert.rejects(s.list('recordstreams'), /ends with '\/'/);
    }
  });

  it('sends the requester-pays header on every list and get when asked, and only then', async () => {
    const payer = await s3(`s3://${BUCKET}`, { requesterPays: true });
    const from = server.requests.length;
    assert.equal((await payer.list('recordstreams/record0.0.4/')).length, 4);
    assert.ok(await payer.read('recordstreams/record0.0.4/2022-07-13T08_46_08.041986003Z.rcd_sig'));
    assert.deepEqual(await payer.folders('demo/0/'), ['demo/0/0/']);
    const sent = server.requests.slice(from);
    assert.equal(sent.length, 3);
    for (const r of sent) assert.equal(r.headers['x-amz-request-payer'], 'requester', r.url);
    const plain = await s3(`s3://${BUCKET}`);
    const before = server.requests.length;
    await plain.list('recordstreams/record0.0.4/');
    assert.equal(server.requests[before]?.headers['x-amz-request-payer'], undefined);
  });

  it('signs with the credential chain, and sends unsigned requests only when it finds none and anonymous is set', async () => {
    const signed = await s3(`s3://${BUCKET}`, { anonymous: true });
    let from = server.requests.length;
    await signed.list('extra/');
    assert.match(String(server.requests[from]?.headers.authorization), /^AWS4-HMAC-SHA256 Credential=S3RVER\//);

    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const anonymous = await s3(`s3://${BUCKET}`, { anonymous: true });
      from = server.requests.length;
      assert.deepEqual(keysOf(await anonymous.list('extra/')), keysOf(await local.list('extra/')));
      assert.deepEqual(await anonymous.read('extra/a.rcd'), await local.read('extra/a.rcd'));
      assert.equal(server.requests.length - from, 2);
      for (const r of server.requests.slice(from)) assert.equal(r.headers.authorization, undefined);

      const withoutCredentials = await s3(`s3://${BUCKET}`);
      const error = await withoutCredentials.list('extra/').then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof S3SourceError);
      assert.match(error.message, new RegExp(`^s3://${BUCKET}/: listing 'extra/' in bucket '${BUCKET}' failed: .*credentials`, 'i'));
    } finally {
      process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
    }
  });

  it('a bucket that does not exist: one line naming the bucket, the key and the cause, and no credential', async () => {
    process.env.AWS_SECRET_ACCESS_KEY = 'a-secret-that-must-not-show';
    try {
      const source = await s3('s3://no-such-bucket/mainnet');
      for (const attempt of [
        () => source.list('recordstreams/'),
        () => source.folders(''),
        () => source.read('recordstreams/record0.0.3/x.rcd'),
      ]) {
        const error = await attempt().then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(error instanceof S3SourceError);
        assert.match(error.message, /^s3:\/\/no-such-bucket\/mainnet\/: (listing|reading) .* in bucket 'no-such-bucket' failed: /);
        assert.match(error.message, /NoSuchBucket|SignatureDoesNotMatch|InvalidAccessKeyId/);
        assert.doesNotMatch(error.message, /\n|a-secret-that-must-not-show/);
      }
      const read = await source.read('recordstreams/record0.0.3/x.rcd').catch((e: Error) => e.message);
      assert.match(String(read), /reading 'recordstreams\/record0\.0\.3\/x\.rcd'/);
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
    }
  });

  it('a synthetic signed stream in the NODE_ID layout, read through S3, verifies file after file', async () => {
    const folder = join(treeRoot, 'synthetic');
    const summary = await writeStream({ out: folder, nodes: 4, files: 3, recordsPerFile: 20, seed: 5, keyBits: 2048, layout: 'node' });
    // beside mainnet/, which the other tests compare with the local tree
    await server.upload(PREFIXED, folder, 'synthetic/');
    const source = await s3(`s3://${PREFIXED}/synthetic`, { requesterPays: true });
    const book = parseAddressBook((await source.read('addressbook.bin'))!, 'addressbook.bin');
    const nodes = (await source.folders('demo/0/')).map((f) => ({ nodeId: BigInt(f.split('/')[2]!), folder: `${f}record/` }));
    assert.equal(nodes.length, 4);
    const names = (await source.list(nodes[0]!.folder))
      .map((o) => o.key.slice(nodes[0]!.folder.length))
      .filter((n) => n.endsWith('.rcd.gz'));
    assert.deepEqual(names, summary.names);
    let previous: Buffer = Buffer.from(summary.firstPrevHash, 'hex');
    for (const name of names) {
      const copies = [];
      const signatures = [];
      for (const { nodeId, folder: nodeFolder } of nodes) {
        copies.push({ name: `${nodeFolder}${name}`, bytes: (await source.read(`${nodeFolder}${name}`))! });
        const sig = `${nodeFolder}${name.replace(/\.gz$/, '')}_sig`;
        signatures.push({ nodeId, signature: readSignatureFile(sig, (await source.read(sig))!) });
      }
      const file = acceptRecordFile(copies, reachConsensus(name, signatures, book), previous);
      assert.equal(file.count, 20);
      previous = file.hash;
    }
    assert.equal(previous.toString('hex'), summary.lastHash);
  });

  it('openStreamSource: s3:// through S3, a folder locally, a clear error for a missing folder', async () => {
    const viaS3 = await openStreamSource(`s3://${PREFIXED}/mainnet`, base);
    opened.push(viaS3);
    assert.ok(viaS3 instanceof S3Source);
    assert.deepEqual(await viaS3.folders('demo/'), await local.folders('demo/'));
    const viaFolder = await openStreamSource(join(treeRoot, 'tree'));
    assert.ok(viaFolder instanceof LocalSource);
    assert.deepEqual(await viaFolder.folders('demo/'), await local.folders('demo/'));
    await assert.rejects(openStreamSource(join(treeRoot, 'missing')), /stream source folder .*missing does not exist/);
    await assert.rejects(openStreamSource(join(treeRoot, 'tree', 'extra', 'a.rcd')), /is not a folder/);
    await assert.rejects(openStreamSource('gs://bucket/x'), /unsupported stream source gs:\/\/bucket\/x/);
  });

  it('the ingest.s3.* settings reach the source: region, endpoint, path style, requester pays, GCS project, anonymous', async () => {
    const ingest = defaultConfig().ingest;
    const settings = {
      ...ingest,
      source: `s3://${PREFIXED}/mainnet`,
      addressBook: testBookPath('test-v6-sidecar-4n.bin'),
      s3: {
        region: 'eu-west-1',
        endpoint: server.endpoint,
        forcePathStyle: true,
        requesterPays: true,
        anonymous: true,
        gcsProject: 'lqs-billing',
      },
    };
    const signed = (await resolveIngestion(settings, true)).source;
    opened.push(signed);
    assert.ok(signed instanceof S3Source);
    let from = server.requests.length;
    assert.deepEqual(await signed.folders('demo/'), await local.folders('demo/'));
    for (const r of server.requests.slice(from)) {
      assert.match(r.url, new RegExp(`^/${PREFIXED}/\\?`), 'path style');
      // signed with the query parameter: s3rver checks the signature over it
      assert.equal(new URL(r.url, server.endpoint).searchParams.get('userProject'), 'lqs-billing');
      assert.equal(r.headers['x-amz-request-payer'], 'requester');
      assert.match(String(r.headers.authorization), /Credential=S3RVER\/\d{8}\/eu-west-1\//);
    }
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const unsigned = (await resolveIngestion({ ...settings, s3: { ...settings.s3, requesterPays: false, gcsProject: '' } })).source;
      opened.push(unsigned);
      from = server.requests.length;
      assert.deepEqual(await unsigned.folders('demo/'), await local.folders('demo/'));
      for (const r of server.requests.slice(from)) {
        assert.equal(r.headers.authorization, undefined);
        assert.equal(r.headers['x-amz-request-payer'], undefined);
        assert.equal(new URL(r.url, server.endpoint).searchParams.get('userProject'), null);
      }
    } finally {
      process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
    }
    await assert.rejects(
      resolveIngestion({ ...settings, source: 's3://no-such-bucket/x' }, true),
      (e: Error) => e.name === 'UserError' && /^s3:\/\/no-such-bucket\/x\/: listing the folders under '' .*NoSuchBucket/.test(e.message),
    );
  });

  it('a stopped server: one line naming the bucket and the connection failure', async () => {
    const source = await s3(`s3://${PREFIXED}/mainnet`);
    await server.stop();
    const error = await source.list('recordstreams/').then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof S3SourceError);
    assert.match(
      error.message,
      new RegExp(`^s3://${PREFIXED}/mainnet/: listing 'recordstreams/' in bucket '${PREFIXED}' failed: .*ECONNREFUSED`),
    );
    assert.doesNotMatch(error.message, /\n/);
  });
});
