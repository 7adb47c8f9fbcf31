/**
 * TLS to PostgreSQL (db.sslMode, db.tls.*) against a private server started with ssl=on and a
 * certificate this test signs with its own certificate authority (openssl).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFailure } from '../../src/cli/failure.js';
import { type Config, configWith } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { createPrivatePostgres, type PrivatePostgres, privatePostgresSkipReason } from '../support/privatePostgres.js';

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** A certificate authority (`name`.crt, `name`.key) in `dir`. */
function makeCa(dir: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );
}

function skipReason(): string | false {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
  } catch {
    return 'needs openssl to make the certificates';
  }
  return privatePostgresSkipReason();
}

describe('TLS to PostgreSQL', { skip: skipReason() }, () => {
  let dir: string;
  let server: PrivatePostgres;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-tls-'));
    makeCa(dir, 'ca');
    makeCa(dir, 'other-ca');
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr'], dir);
    execFileSync('sh', ['-c', 'printf "subjectAltName=DNS:localhost,IP:127.0.0.1\\n" > san.ext'], { cwd: dir });
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        'san.ext',
        '-out',
        'server.crt',
      ],
      dir,
    );
    server = await createPrivatePostgres({ tls: { certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') } });
    url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  });
  after(() => {
    server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const config = (db: Record<string, unknown>): Config => configWith({ db: { url, migrate: false, poolSize: 2, ...db } });

  /** Whether the service's own connection is encrypted, as the server sees it. */
  async function encrypted(c: Config): Promise<boolean> {
    const db = await openDatabase(c);
    try {
      const rows = await db.query<{ ssl: boolean }>('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
      return rows[0]!.ssl;
    } finally {
      await db.close();
    }
  }

  it('connects with TLS, checking the certificate against db.tls.ca (verify-full, verify-ca)', async () => {
    const ca = join(dir, 'ca.crt');
    assert.equal(await encrypted(config({ sslMode: 'verify-full', tls: { ca } })), true);
    assert.equal(await encrypted(config({ sslMode: 'verify-ca', tls: { ca } })), true);
  });

  it('uses the same TLS for every read replica', async () => {
    const ca = join(dir, 'ca.crt');
    const c = config({ sslMode: 'verify-full', tls: { ca }, replicas: [url], replicaCheckIntervalMs: 60_000 });
    const db = await openDatabase(c);
    try {
      assert.deepEqual(
        db.pools?.().map((p) => p.name),
        ['primary', 'replica1'],
      );
      // reads go round the primary and the replica
      for (let i = 0; i < 6; i++) {
        const rows = await db.query<{ ssl: boolean }>('select ssl from pg_stat_ssl where pid = pg_backend_pid()');
        assert.equal(rows[0]!.ssl, true);
      }
      const connections = await db.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity a join pg_stat_ssl s using (pid) where a.application_name = 'ledger-query-service' and not s.ssl",
      );
      assert.equal(connections[0]!.n, 0, 'no plain connection');
    } finally {
      await db.close();
    }
  });

  it('encrypts without checking with db.tls.enabled, as the reference does, and not at all by default', async () => {
    assert.equal(await encrypted(config({ tls: { enabled: true } })), true);
    assert.equal(await encrypted(config({ sslMode: 'require' })), true);
    assert.equal(await encrypted(config({})), false);
  });

  it('refuses a certificate another authority signed, in one clear line', async () => {
    const c = config({ sslMode: 'verify-ca', tls: { ca: join(dir, 'other-ca.crt') } });
    const err = await openDatabase(c).then(
      async (db) => {
        await db.close();
        return assert.fail('connected');
      },
      (e: unknown) => e,
    );
    const line = describeFailure(err, c);
    assert.match(
      line,
      new RegExp(
        `^PostgreSQL at 127\\.0\\.0\\.1:${server.port} presented a certificate that the certificate authority of db\\.tls\\.ca \\(.*other-ca\\.crt\\) did not sign \\(\\w+\\); correct db\\.tls\\.ca`,
      ),
    );
    assert.doesNotMatch(line, /\n/);
  });

  it('says so when the server does not accept TLS', async () => {
    const plain = await createPrivatePostgres();
    try {
      const c = configWith({ db: { url: `postgres://postgres@127.0.0.1:${plain.port}/postgres`, migrate: false, sslMode: 'require' } });
      const err = await openDatabase(c).then(
        () => assert.fail('connected'),
        (e: unknown) => e,
      );
      assert.match(describeFailure(err, c), /does not accept TLS \(its ssl setting is off\)/);
    } finally {
      plain.destroy();
    }
  });
});
