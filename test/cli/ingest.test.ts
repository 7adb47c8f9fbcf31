/**
 * `lqs ingest` and `serve` with ingest.* as an operator runs them: exit codes, the one-line refusal,
 * the summary, SIGTERM while following, mainnet's errata folder (refused when unusable, a warning
 * without it), the refusal of a mirror node database, an `s3://` source
 * against a private S3-compatible server (the rows of the same tree read from a folder; a missing
 * bucket and a stopped server refused before the database is touched), and serve ingesting into
 * PGlite with its metrics.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { configWith } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { createScratchDatabase, DEFAULT_ADMIN_URL, type ScratchDatabase } from '../../tools/db/scratch.js';
import { migratedDataDir } from '../../tools/testApp/pglite.js';
import { writtenRows } from '../support/ingestRun.js';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../support/s3Server.js';
import { type Bucket, bucketOf, recordStreamBucket, testBookPath } from '../support/streamBuckets.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const ADMIN_URL = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
const BOOK = testBookPath('test-v6-sidecar-4n.bin');
const ERRATA = join(STREAMS_DIR, 'errata', 'mainnet');
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LQS_ADMIN_ENABLED: 'false', LQS_LOG_LEVEL: 'warn' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function lqs(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { env: { ...BASE_ENV, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

function oneLine(run: Run, pattern: RegExp): void {
  assert.equal(run.code, 1, run.stderr + run.stdout);
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, pattern);
}

function started(child: ChildProcess): { out: () => string; exited: Promise<number | null> } {
  let out = '';
  child.stdout?.on('data', (chunk) => (out += String(chunk)));
  child.stderr?.on('data', (chunk) => (out += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { out: () => out, exited };
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('lqs ingest', () => {
  let dir: string;
  let bucket: Bucket;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-ingest-cli-'));
    bucket = recordStreamBucket('v6');
  });
  after(() => {
    bucket.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A data directory holding a migrated database, copied from one made once from the test
   * snapshot: the commands then skip PGlite's initdb and the migrations, which are not what these
   * tests are about (the ingester finds the schema up to date).
   */
  let template: Promise<string> | undefined;
  const migratedCopy = async (name: string): Promise<string> => {
    template ??= migratedDataDir(join(dir, 'migrated')).then(() => join(dir, 'migrated'));
    const copy = join(dir, name);
    cpSync(await template, copy, { recursive: true });
    return copy;
  };

  it('--once ingests what is there into PGlite, then nothing the second time', async () => {
    const env = { LQS_DB_DATADIR: await migratedCopy('once') };
    const first = await lqs(['ingest', '--once', '--address-book', BOOK, bucket.root], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'ingested 2 files, 3 records; newest 2022-07-13T08:46:11.304284004Z\n');
    const second = await lqs(['ingest', '--once', '--address-book', BOOK, bucket.root], env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'ingested 0 files, 0 records; newest 2022-07-13T08:46:11.304284004Z\n');
  });

  it('refuses a bad file in one line naming it, exit 1', async () => {
    const bad = recordStreamBucket('v6');
    try {
      bad.rewriteEach(
        (f) => f.endsWith('.rcd.gz') && !f.includes('sidecar'),
        (x) => x.subarray(0, 48),
      );
      oneLine(
        await lqs(['ingest', '--once', '--address-book', BOOK, bad.root], { LQS_DB_DATADIR: await migratedCopy('bad') }),
        /^error: refused 2022-07-13T08_46_08\.041986003Z\.rcd\.gz: no node's copy can be accepted: /,
      );
    } finally {
      bad.dispose();
    }
  });

  it('--network mainnet without --errata warns once at start-up what is not corrected; with it, no warning', async () => {
    // the database cannot be reached: the run ends there, after the start-up checks and the warning
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' };
    const warned = (run: Run) => run.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    const without = await lqs(['ingest', '--once', '--network', 'mainnet', bucket.root], env);
    assert.equal(without.code, 1, without.stderr);
    assert.deepEqual(
      warned(without).map((l) => l.replace(/ \(the 113 .*/, '')),
      ["warning: network mainnet without its errata folder: the mirror node importer's corrections from its errata files are not applied"],
    );
    assert.match(warned(without)[0]!, /give --errata DIR \(ingest\.errata, LQS_INGEST_ERRATA\)/);
    const given = await lqs(['ingest', '--once', '--network', 'mainnet', '--errata', ERRATA, bucket.root], env);
    assert.equal(given.code, 1, given.stderr);
    assert.deepEqual(warned(given), []);
    assert.doesNotMatch(given.stderr, /errata/);
  });

  it('refuses what it cannot use before touching the database', async () => {
    // a database that cannot be reached: the settings are refused before it is tried
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' };
    oneLine(
      await lqs(['ingest', '--once', '--address-book', BOOK, 'gs://bucket/prefix'], env),
      /^error: unsupported stream source gs:\/\/bucket\/prefix: give a folder or s3:\/\/bucket\/prefix$/,
    );
    oneLine(
      await lqs(['ingest', '--once', '--address-book', BOOK, join(dir, 'none')], env),
      /^error: stream source folder .* does not exist$/,
    );
    oneLine(
      await lqs(['ingest', '--once', '--address-book', BOOK, '--s3-endpoint', 'storage.example/x', 's3://bucket/prefix'], env),
      /^error: .*ingest\.s3\.endpoint/,
    );
    oneLine(
      await lqs(['ingest', '--once', bucket.root], env),
      /^error: an address book verifies the signatures: give --address-book FILE or --network NAME/,
    );
    oneLine(await lqs(['ingest', '--once', '--network', 'moon', bucket.root], env), /^error: no bundled address book for network 'moon'/);
    oneLine(
      await lqs(['ingest', '--once', '--network', 'demo', '--trust', '7:abc', bucket.root], env),
      /^error: --trust wants NUMBER:HASH/,
    );
    const serve = await lqs(['serve'], { LQS_DB_DATADIR: 'memory', PORT: '0', LQS_INGEST_SOURCE: bucket.root });
    oneLine(serve, /^error: an address book verifies the signatures/);
    // mainnet's errata: a folder that cannot be used, or errata for another network
    oneLine(
      await lqs(['ingest', '--once', '--network', 'mainnet', '--errata', join(dir, 'none'), bucket.root], env),
      /^error: errata folder .*none: the folder is missing \(the importer's errata\/mainnet layout/,
    );
    oneLine(
      await lqs(['ingest', '--once', '--network', 'mainnet', '--errata', join(ERRATA, 'balance-offsets.txt'), bucket.root], env),
      /^error: errata folder .*balance-offsets\.txt: not a folder$/,
    );
    oneLine(
      await lqs(['ingest', '--once', '--network', 'demo', '--errata', ERRATA, bucket.root], env),
      /^error: the errata of --errata \(ingest\.errata\) are mainnet's: they need --network mainnet \(ingest\.network\), not 'demo'$/,
    );
    // serve reads the folder before it opens the database: its data directory is not created
    const serveData = join(dir, 'serve-errata');
    const serveEnv = { LQS_DB_DATADIR: serveData, PORT: '0', LQS_INGEST_SOURCE: bucket.root, LQS_INGEST_ADDRESSBOOK: BOOK };
    oneLine(
      await lqs(['serve'], { ...serveEnv, LQS_INGEST_ERRATA: ERRATA }),
      /^error: the errata of --errata \(ingest\.errata\) are mainnet's: .*, not none$/,
    );
    oneLine(
      await lqs(['serve'], { ...serveEnv, LQS_INGEST_NETWORK: 'mainnet', LQS_INGEST_ERRATA: join(dir, 'none') }),
      /^error: errata folder .*none: the folder is missing/,
    );
    assert.equal(existsSync(serveData), false, 'the database was not opened');
    const noArgument = await lqs(['ingest', '--once'], env);
    assert.equal(noArgument.code, 2);
  });

  describe('on PostgreSQL', () => {
    let scratch: ScratchDatabase | undefined;
    before(async () => {
      scratch = await createScratchDatabase(ADMIN_URL, 'lqs_ingest_cli').catch(() => undefined);
    });
    /** the scratch database, or the test is skipped saying what it needs */
    const database = (t: { skip(message: string): void }): ScratchDatabase | null => {
      if (!scratch) t.skip(`no PostgreSQL server at ${ADMIN_URL} (LQS_TEST_ADMIN_URL)`);
      return scratch ?? null;
    };
    after(async () => {
      await scratch?.drop();
    });

    async function count(url: string, table: string): Promise<number | null> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = await client.query(`select count(*)::int as n from ${table}`);
        return rows.rows[0].n as number;
      } finally {
        await client.end();
      }
    }

    it('follows the source until SIGTERM, which ends it with 0 after the file in hand', async (t) => {
      const db = database(t);
      if (!db) return;
      const child = spawn(process.execPath, [MAIN, 'ingest', '--address-book', BOOK, bucket.root], {
        env: { ...BASE_ENV, DATABASE_URL: db.url, LQS_INGEST_POLLMS: '50' },
      });
      const run = started(child);
      t.after(() => child.kill('SIGKILL'));
      await until('two files', async () => ((await count(db.url, 'record_file')) === 2 ? true : null));
      child.kill('SIGTERM');
      assert.equal(await run.exited, 0, run.out());
      assert.match(run.out(), /^ingested 2 files, 3 records; newest /m);
      assert.equal(await count(db.url, 'transaction'), 3);
    });

    it('refuses a mirror node database before writing anything', async (t) => {
      const db = database(t);
      if (!db) return;
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query('drop schema public cascade; create schema public; create table flyway_schema_history (installed_rank int)');
      } finally {
        await client.end();
      }
      oneLine(
        await lqs(['ingest', '--once', '--address-book', BOOK, bucket.root], { DATABASE_URL: db.url }),
        /^error: Not ingesting into the database: it is a mirror node database/,
      );
      assert.equal(await count(db.url, 'record_file').catch(() => null), null, 'nothing created');
    });

    describe('from a bucket through the S3 API (s3rver)', () => {
      const STREAMS = 'lqs-streams';
      let server: TestS3Server;
      let tree: Bucket;
      /** s3rver's account from the environment, as the AWS chain reads it; never a profile or instance metadata */
      let awsEnv: Record<string, string>;
      before(async () => {
        // both record-stream layouts at once: node 0.0.3 in recordstreams/record0.0.3/, node 1 in demo/0/1/record/
        tree = bucketOf([{ shared: 'hip679/provider-auto', at: '' }]);
        server = await startS3Server([STREAMS]);
        await server.upload(STREAMS, tree.root, 'net/');
        awsEnv = {
          AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
          AWS_CONFIG_FILE: join(dir, 'no-config'),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        };
      });
      after(async () => {
        await server?.stop();
        tree?.dispose();
      });

      async function emptied(url: string): Promise<void> {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query('drop schema public cascade; create schema public');
        } finally {
          await client.end();
        }
      }

      async function rowsOf(url: string): Promise<Record<string, unknown[]>> {
        const db = await openDatabase(configWith({ db: { url, migrate: false } }));
        try {
          return await writtenRows(db);
        } finally {
          await db.close();
        }
      }

      it('s3://bucket/prefix with both record-stream layouts: the rows of the same tree read from a folder', async (t) => {
        const db = database(t);
        if (!db) return;
        const book = ['--address-book', BOOK, '--network', 'demo'];
        const env = { ...awsEnv, DATABASE_URL: db.url };
        await emptied(db.url);
        const from = server.requests.length;
        const s3 = ['--s3-endpoint', server.endpoint, '--s3-force-path-style', '--requester-pays', `s3://${STREAMS}/net`];
        const viaS3 = await lqs(['ingest', '--once', ...book, ...s3], env);
        assert.equal(viaS3.code, 0, viaS3.stderr);
        assert.equal(viaS3.stdout, 'ingested 2 files, 3 records; newest 2022-07-13T08:46:11.304284004Z\n');
        const sent = server.requests.slice(from);
        const prefixes = new Set(sent.map((r) => new URL(r.url, server.endpoint).searchParams.get('prefix')));
        assert.ok(prefixes.has('net/recordstreams/record0.0.3/') && prefixes.has('net/demo/0/1/record/'), [...prefixes].join(' '));
        for (const r of sent) assert.equal(r.headers['x-amz-request-payer'], 'requester', r.url);
        const rows = await rowsOf(db.url);
        assert.equal(rows.record_file!.length, 2);
        assert.equal(rows.transaction!.length, 3);

        await emptied(db.url);
        const viaFolder = await lqs(['ingest', '--once', ...book, tree.root], env);
        assert.equal(viaFolder.stdout, viaS3.stdout, viaFolder.stderr);
        assert.deepEqual(await rowsOf(db.url), rows);
      });

      it('a missing bucket, then a stopped server: one line, exit 1, the database untouched', async (t) => {
        const db = database(t);
        if (!db) return;
        await emptied(db.url);
        // the settings this time (ingest.s3.*), instead of the options
        const env = {
          ...awsEnv,
          DATABASE_URL: db.url,
          LQS_INGEST_S3_ENDPOINT: server.endpoint,
          LQS_INGEST_S3_FORCEPATHSTYLE: 'true',
          LQS_INGEST_S3_REGION: 'us-east-1',
        };
        oneLine(
          await lqs(['ingest', '--once', '--address-book', BOOK, 's3://no-such-bucket/net'], env),
          /^error: s3:\/\/no-such-bucket\/net\/: listing the folders under '' in bucket 'no-such-bucket' failed: NoSuchBucket /,
        );
        await server.stop();
        oneLine(
          await lqs(['ingest', '--once', '--address-book', BOOK, `s3://${STREAMS}/net`], env),
          new RegExp(`^error: s3://${STREAMS}/net/: listing the folders under '' in bucket '${STREAMS}' failed: .*ECONNREFUSED`),
        );
        assert.equal(await count(db.url, 'record_file').catch(() => null), null, 'nothing created');
      });
    });
  });

  it('serve with ingest.* ingests into PGlite in the same process, with its metrics, and stops with 0', async (t) => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...BASE_ENV,
        LQS_LOG_LEVEL: 'info',
        LQS_DB_DATADIR: await migratedCopy('serve'),
        PORT: '0',
        LQS_INGEST_SOURCE: bucket.root,
        LQS_INGEST_ADDRESSBOOK: BOOK,
        LQS_INGEST_NETWORK: 'mainnet',
        LQS_INGEST_POLLMS: '50',
      },
    });
    const run = started(child);
    t.after(() => child.kill('SIGKILL'));
    const base = await until('listening', async () => /listening on (http:\/\/\S+)/.exec(run.out())?.[1] ?? null);
    const blocks = await until('two blocks', async () => {
      const body = (await (await fetch(`${base}/api/v1/blocks?order=asc`)).json()) as { blocks: { number: number; name: string }[] };
      return body.blocks.length === 2 ? body.blocks : null;
    });
    assert.deepEqual(
      blocks.map((b) => [b.number, b.name]),
      [
        [5, '2022-07-13T08_46_08.041986003Z.rcd.gz'],
        [6, '2022-07-13T08_46_11.304284003Z.rcd.gz'],
      ],
    );
    const metrics = await (await fetch(`${base}/swagger/metrics/`)).text();
    assert.match(metrics, /^lqs_ingest_files_total 2$/m);
    assert.match(metrics, /^lqs_ingest_records_total 3$/m);
    assert.match(metrics, /^lqs_ingest_verification_failures_total 0$/m);
    assert.match(metrics, /^lqs_ingest_seconds_behind \d+(\.\d+)?$/m);
    assert.equal((await fetch(`${base}/health/readiness`)).status, 200);
    // network mainnet without its errata folder: one warning in the log at start-up
    assert.equal(run.out().match(/network mainnet without its errata folder/g)?.length, 1, run.out());
    child.kill('SIGTERM');
    assert.equal(await run.exited, 0, run.out());
  });
});
