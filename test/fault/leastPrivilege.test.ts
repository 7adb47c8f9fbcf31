import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { SettableClock } from '../../src/clock.js';
import { configWith } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { createScratchDatabase, DEFAULT_ADMIN_URL, type ScratchDatabase } from '../../tools/db/scratch.js';
import { SetupLoader } from '../../src/ledgerSetup/loader.js';
import { createLogger } from '../../src/logger.js';
import { postgresServerSkipReason } from '../support/privatePostgres.js';

const adminUrl = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
const pool = { poolSize: 2, statementTimeoutMs: 5000, connectionTimeoutMs: 3000 };

describe('running as a role that can only SELECT', { skip: await postgresServerSkipReason(adminUrl) }, () => {
  const role = `lqs_reader_${randomBytes(4).toString('hex')}`;
  let scratch: ScratchDatabase;
  let owner: Db;
  let reader: Db;
  let app: FastifyInstance;

  before(async () => {
    scratch = await createScratchDatabase(adminUrl);
    owner = await openPostgres({ url: scratch.url, ...pool });
    await migrate(owner);
    await new SetupLoader(owner, { shard: 0n, realm: 0n }).load({
      recordFiles: [{ index: 7, hash: 'ab'.repeat(48) }],
      accounts: [{ num: 1001 }],
    });
    await owner.exec(`create role ${role} login;
      grant connect on database ${new URL(scratch.url).pathname.slice(1)} to ${role};
      grant usage on schema public to ${role};
      grant select on all tables in schema public to ${role};`);
    const readerUrl = new URL(scratch.url);
    readerUrl.username = role;
    reader = await openPostgres({ url: readerUrl.toString(), ...pool });
    const config = configWith({ db: { migrate: false } });
    app = await buildApp({ config, db: reader, clock: new SettableClock(), logger: createLogger('silent') });
  });

  after(async () => {
    await app?.close();
    await reader?.close();
    await owner?.close();
    await scratch?.drop();
    const cleanup = await openPostgres({ url: adminUrl, ...pool });
    await cleanup.exec(`drop role if exists ${role}`);
    await cleanup.close();
  });

  it('serves the API without migrating', async () => {
    const res = await app.inject('/api/v1/blocks/7');
    assert.equal(res.statusCode, 200);
    assert.equal(JSON.parse(res.body).number, 7);
    assert.equal((await app.inject('/health/readiness')).statusCode, 200);
  });

  it('cannot write, so migrations stay a separate step for the owner', async () => {
    await assert.rejects(
      reader.query(
        'insert into record_file (index, consensus_start, consensus_end, count, hash, prev_hash, name) values (1, 1, 1, 1, $1, $1, $1)',
        ['x'],
      ),
      /permission denied/,
    );
    await assert.rejects(migrate(reader), /permission denied/);
  });
});
