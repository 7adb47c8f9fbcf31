/**
 * Generates the small scale into a private database of the test backend (PGlite in memory, or a
 * scratch PostgreSQL database) through the real bulk-load path, then checks the dataset's
 * consistency in SQL and asks every endpoint for some of it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { configWith, defaultConfig } from '../../src/config.js';
import { parseJson } from '../../tools/conformance/spec.js';
import type { Db } from '../../src/db/db.js';
import { migrate } from '../../src/db/migrate.js';
import { openPgliteHandle } from '../../tools/testApp/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import {
  createReaderRole,
  createScratchDatabase,
  DEFAULT_ADMIN_URL,
  loadMirrorSchema,
  type ReaderRole,
  type ScratchDatabase,
} from '../../tools/db/scratch.js';
import { base32Encode } from '../../src/domain/base32.js';
import { captureIndexes, dropIndexes, markLoading, readMarker, type DatasetSummary } from '../../tools/generate/dataset.js';
import { generateDataset, GenerateRefused } from '../../tools/generate/generate.js';
import { scaleOf } from '../../tools/generate/scales.js';
import { fitSchema } from '../../tools/generate/schema.js';
import { GENERATED_TABLES } from '../../tools/generate/tables.js';
import { openTarget as openConfiguredTarget, pgliteTarget, postgresTarget, type GenerateTarget } from '../../tools/generate/target.js';
import { formatTimestamp } from '../../src/domain/timestamp.js';
import { formatTransactionId } from '../../src/domain/transactionId.js';
import { createLogger } from '../../src/logger.js';
import { backend } from '../support/harness.js';
import { buildMixes } from '../../tools/bench/mixes.js';
import { sampleDataset } from '../../tools/bench/sample.js';
import { ENDPOINT_TARGETS, meetsExpectation } from '../../tools/bench/targets.js';

const SEED = 11;

async function openTarget(): Promise<{ target: GenerateTarget; drop: () => Promise<void> }> {
  if (backend === 'postgres') {
    const scratch = await createScratchDatabase(process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL, 'lqs_generate');
    const db = await openPostgres({ url: scratch.url, poolSize: 3, statementTimeoutMs: 0, connectionTimeoutMs: 5_000 });
    await migrate(db);
    return { target: postgresTarget(db, scratch.url), drop: scratch.drop };
  }
  const handle = await openPgliteHandle('');
  await migrate(handle.db);
  return { target: pgliteTarget(handle), drop: async () => {} };
}

/** Up to `n` of `requests`, taking each kind's next request in turn: every kind is asked, none crowds out the others. */
function byKindInTurn<T extends { kind: string }>(requests: readonly T[], n: number): T[] {
  const queues = new Map<string, T[]>();
  for (const request of requests) queues.set(request.kind, [...(queues.get(request.kind) ?? []), request]);
  const taken: T[] = [];
  while (taken.length < n && [...queues.values()].some((q) => q.length > 0)) {
    for (const queue of queues.values()) if (taken.length < n && queue.length > 0) taken.push(queue.shift()!);
  }
  return taken;
}

async function count(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  const rows = await db.query<{ n: bigint }>(sql, params);
  return Number(rows[0]!.n);
}

describe(`generated small dataset (${backend})`, () => {
  let target: GenerateTarget;
  let drop: () => Promise<void>;
  let summary: DatasetSummary;
  let app: FastifyInstance;

  before(async () => {
    ({ target, drop } = await openTarget());
  });

  after(async () => {
    await app?.close();
    await target?.close();
    await drop?.();
  });

  it('refuses to write over data it did not generate', async () => {
    await target.db.query(
      `insert into record_file (index, consensus_start, consensus_end, count, hash, prev_hash, name) values (1, 1, 2, 0, 'aa', 'bb', 'x')`,
    );
    await assert.rejects(generateDataset(target, { scale: 'tiny', seed: SEED }), GenerateRefused);
    await target.db.query('delete from record_file');
  });

  it('generates, rebuilds the indexes and marks the dataset complete', async () => {
    const before = await captureIndexes(target.db, GENERATED_TABLES);
    const result = await generateDataset(target, { scale: 'small', seed: SEED });
    summary = result.summary;
    assert.equal(result.skipped, false);
    const marker = await readMarker(target.db);
    assert.equal(marker?.status, 'complete');
    assert.deepEqual(marker?.summary?.rows, summary.rows);
    assert.deepEqual(await captureIndexes(target.db, GENERATED_TABLES), before);
    assert.ok(summary.load.rowsPerSecond > 0);
  });

  it('holds the rows it reports, at the scale asked for', async () => {
    for (const [table, n] of Object.entries(summary.rows))
      assert.equal(await count(target.db, `select count(*) as n from ${table}`), n, table);
    const scale = scaleOf('small');
    assert.equal(summary.rows.record_file, scale.blocks);
    assert.equal(summary.rows.nft, scale.nfts);
    assert.ok(summary.transactions.topLevel >= scale.transactions);
    assert.ok(summary.contractResults >= scale.contractResults);
    assert.ok(summary.rows.crypto_transfer! + summary.rows.token_transfer! >= 2.5 * scale.transactions);
  });

  it('is referentially consistent', async () => {
    const db = target.db;
    const orphans = (table: string) =>
      count(
        db,
        `select count(*) as n from ${table} x where not exists (
        select 1 from transaction t where t.consensus_timestamp = x.consensus_timestamp and t.payer_account_id = x.payer_account_id)`,
      );
    for (const table of [
      'crypto_transfer',
      'token_transfer',
      'staking_reward_transfer',
      'entity_transaction',
      'transaction_hash',
      'contract_result',
      'ethereum_transaction',
      'contract_transaction',
    ]) {
      assert.equal(await orphans(table), 0, `every ${table} row has its transaction`);
    }
    assert.equal(
      await count(
        db,
        `select count(*) as n from (select consensus_timestamp from crypto_transfer group by consensus_timestamp having sum(amount) <> 0) x`,
      ),
      0,
      'transfers balance',
    );
    for (const column of ['contract_id', 'payer_account_id']) {
      assert.equal(
        await count(
          db,
          `select count(*) as n from contract_result r where not exists (
          select 1 from contract_transaction c where c.consensus_timestamp = r.consensus_timestamp and c.entity_id = r.${column})`,
        ),
        0,
        `contract_transaction rows for each result's ${column}`,
      );
    }
    assert.equal(
      await count(
        db,
        `select count(*) as n from contract_result r where not exists (
        select 1 from contract_transaction_hash h where h.consensus_timestamp = r.consensus_timestamp and h.hash = r.transaction_hash)`,
      ),
      0,
    );
    assert.equal(
      await count(
        db,
        `select count(*) as n from ethereum_transaction e where not exists (select 1 from contract_result r where r.consensus_timestamp = e.consensus_timestamp)`,
      ),
      0,
    );
    assert.equal(
      await count(db, `select count(distinct consensus_timestamp) as n from account_balance`),
      await count(db, `select count(*) as n from account_balance where account_id = 2`),
      'a snapshot row for 0.0.2 at every snapshot',
    );
    assert.equal(
      await count(
        db,
        `select count(*) as n from token_balance b where not exists (select 1 from account_balance a where a.account_id = 2 and a.consensus_timestamp = b.consensus_timestamp)`,
      ),
      0,
    );
    assert.equal(
      await count(db, `select count(*) as n from record_file a join record_file b on b.index = a.index + 1 where b.prev_hash <> a.hash`),
      0,
      'hash chain',
    );
    assert.equal(await count(db, `select sum(count) as n from record_file`), summary.rows.transaction);
    assert.equal(
      await count(
        db,
        `select count(*) as n from transaction t where (
        select r.consensus_start from record_file r where r.consensus_end >= t.consensus_timestamp order by r.consensus_end limit 1) > t.consensus_timestamp`,
      ),
      0,
      'every transaction inside its block',
    );
    assert.equal(
      await count(
        db,
        `select count(*) as n from (select distinct payer_account_id from transaction) p where not exists (select 1 from entity e where e.id = p.payer_account_id)`,
      ),
      0,
    );
    assert.equal(
      await count(
        db,
        `select count(*) as n from nft n where n.account_id is not null and not exists (
        select 1 from token_account a where a.account_id = n.account_id and a.token_id = n.token_id)`,
      ),
      0,
      'NFT owners are associated with the collection',
    );
    assert.equal(
      await count(
        db,
        `select count(*) as n from token_account a join token t on t.token_id = a.token_id
        where t.type = 'NON_FUNGIBLE_UNIQUE' and a.balance <> (select count(*) from nft n where n.account_id = a.account_id and n.token_id = a.token_id)`,
      ),
      0,
      'NFT balances count the NFTs owned',
    );
    assert.equal(
      await count(db, `select count(*) as n from (select alias from entity where alias is not null group by alias having count(*) > 1) x`),
      0,
      'unique aliases',
    );
  });

  it('answers every endpoint with data', async () => {
    const config = defaultConfig();
    app = await buildApp({ config, db: target.db, clock: systemClock, logger: createLogger('silent') });
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url });
      return { status: res.statusCode, body: parseJson(res.body) as any };
    };
    const blocks = await get('/api/v1/blocks');
    assert.equal(blocks.status, 200);
    assert.equal(blocks.body.blocks.length, 25);
    assert.equal(blocks.body.blocks[0].number, summary.blocks - 1);
    const hash: string = blocks.body.blocks[3].hash;
    for (const path of [hash, hash.slice(0, 66)]) {
      const block = await get(`/api/v1/blocks/${path}`);
      assert.equal(block.status, 200, path);
      assert.equal(block.body.hash, hash);
    }

    const [account] = await target.db.query<{ alias: Uint8Array; num: bigint }>(
      `select alias, num from entity where alias is not null and deleted = false and type = 'ACCOUNT' order by id limit 1`,
    );
    const byAlias = await get(`/api/v1/accounts/${base32Encode(account!.alias)}`);
    assert.equal(byAlias.status, 200);
    assert.equal(byAlias.body.account, `0.0.${account!.num}`);
    const hub = await get(`/api/v1/accounts/0.0.${summary.hubs.exchange}?limit=100`);
    assert.equal(hub.status, 200);
    assert.equal(hub.body.transactions.length, 100);
    assert.ok(hub.body.links.next);

    const owner = summary.topNftOwners[0]![0];
    const nfts = await get(`/api/v1/accounts/0.0.${owner}/nfts?limit=100`);
    assert.equal(nfts.status, 200);
    assert.equal(nfts.body.nfts.length, 100);

    const [result] = await target.db.query<{
      consensus_timestamp: bigint;
      contract_id: bigint;
      transaction_hash: Uint8Array;
      payer_account_id: bigint;
      valid_start_ns: bigint;
    }>(
      `select r.consensus_timestamp, r.contract_id, r.transaction_hash, t.payer_account_id, t.valid_start_ns
       from ethereum_transaction e join contract_result r using (consensus_timestamp) join transaction t using (consensus_timestamp)
       where r.call_result is not null order by r.consensus_timestamp limit 1`,
    );
    const timestamp = formatTimestamp(result!.consensus_timestamp)!;
    for (const url of [
      `/api/v1/contracts/results/0x${Buffer.from(result!.transaction_hash).toString('hex')}`,
      `/api/v1/contracts/results/${formatTransactionId(result!.payer_account_id, result!.valid_start_ns)}`,
      `/api/v1/contracts/0.0.${result!.contract_id}/results/${timestamp}`,
    ]) {
      const res = await get(url);
      assert.equal(res.status, 200, url);
      assert.equal(res.body.timestamp, timestamp, url);
      assert.equal(res.body.contract_id, `0.0.${result!.contract_id}`);
    }
  });

  it('answers the requests of every bench mix drawn from it as the mix expects', async () => {
    const mixes = buildMixes(await sampleDataset(target.db, summary), SEED);
    for (const name of ENDPOINT_TARGETS) {
      const distinct = [...new Map(mixes[name].map((r) => [r.path, r])).values()];
      assert.ok(distinct.length >= 40, `${name}: ${distinct.length} distinct requests`);
      const kinds = new Set<string>();
      for (const request of byKindInTurn(distinct, 120)) {
        const res = await app.inject({ method: 'GET', url: request.path });
        assert.ok(
          meetsExpectation(res.statusCode, request.expect),
          `${name}: ${res.statusCode} for ${request.path} (${request.kind}, expected ${request.expect})`,
        );
        kinds.add(request.kind);
      }
      assert.ok(kinds.size >= 3, `${name}: only ${[...kinds].join(', ')}`);
    }
    assert.ok(mixes['account-without-transactions'].every((r) => r.expect !== 'ok' || r.path.includes('transactions=false')));
  });

  it('keeps a complete dataset, refuses to replace it unasked, and cleans up after an interrupted load', async () => {
    assert.equal((await generateDataset(target, { scale: 'small', seed: SEED })).skipped, true);
    await assert.rejects(generateDataset(target, { scale: 'tiny', seed: SEED }), GenerateRefused);

    // what an interrupted load leaves: the marker says loading, indexes are gone, tables half full
    const indexes = await captureIndexes(target.db, GENERATED_TABLES);
    await markLoading(target.db, 'tiny', SEED, indexes);
    await dropIndexes(target.db, indexes);
    assert.ok((await captureIndexes(target.db, GENERATED_TABLES)).length < indexes.length);

    const result = await generateDataset(target, { scale: 'tiny', seed: SEED });
    assert.equal(result.cleanedIncomplete, true);
    assert.equal((await readMarker(target.db))?.status, 'complete');
    assert.deepEqual(await captureIndexes(target.db, GENERATED_TABLES), indexes);
    assert.equal(await count(target.db, 'select count(*) as n from record_file'), scaleOf('tiny').blocks);
  });
});

/**
 * The tiny scale into a database created from the mirror node's own schema (domains, enums,
 * partitioned balance and hash tables, its columns and constraints), then served by a role that
 * can only SELECT, with migrations off, as an operator runs the service there. PostgreSQL only.
 */
describe('generated tiny dataset on the mirror node schema (postgres)', {
  skip: backend !== 'postgres' && 'the mirror node schema needs PostgreSQL',
}, () => {
  const adminUrl = process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;
  let scratch: ScratchDatabase;
  let target: GenerateTarget;
  let reader: ReaderRole | undefined;
  let readerDb: Db | undefined;
  let app: FastifyInstance | undefined;
  let summary: DatasetSummary;

  before(async () => {
    scratch = await createScratchDatabase(adminUrl, 'lqs_generate_mirror');
    await loadMirrorSchema(scratch.url);
    // the configured path, with migrations on: a mirror node's database is recognised and left unmigrated
    const config = configWith({ db: { url: scratch.url } });
    target = await openConfiguredTarget(config);
  });

  after(async () => {
    await app?.close();
    await readerDb?.close();
    await target?.close();
    await scratch?.drop();
    await reader?.drop();
  });

  it('generates into it without the project migrations, rebuilding its own indexes as they were', async () => {
    assert.equal(await count(target.db, `select count(*) as n from pg_class where relname = 'lqs_migration'`), 0, 'not migrated');
    assert.deepEqual((await fitSchema(target.db)).skipped, ['record_file.node_id']);
    const before = await captureIndexes(target.db, GENERATED_TABLES);
    assert.ok(
      before.some((d) => d.table === 'account_balance' && d.partitioned) && before.some((d) => d.parent === 'transaction_hash__hash'),
    );
    const result = await generateDataset(target, { scale: 'tiny', seed: SEED });
    summary = result.summary;
    assert.equal((await readMarker(target.db))?.status, 'complete');
    assert.deepEqual(await captureIndexes(target.db, GENERATED_TABLES), before, 'the same keys and indexes, partitions attached');
    assert.equal(await count(target.db, `select count(*) as n from pg_index where not indisvalid`), 0, 'every index valid');
    assert.equal(await count(target.db, `select count(*) as n from pg_class where relname = 'lqs_migration'`), 0, 'still not migrated');
  });

  it('holds the rows it reports, the partitioned tables included', async () => {
    for (const [table, n] of Object.entries(summary.rows))
      assert.equal(await count(target.db, `select count(*) as n from ${table}`), n, table);
    assert.equal(summary.rows.record_file, scaleOf('tiny').blocks);
    assert.ok(summary.rows.account_balance! > 0 && summary.rows.token_balance! > 0);
    assert.ok(
      (await count(target.db, `select count(distinct tableoid) as n from transaction_hash`)) > 16,
      'hashes spread over the LIST partitions',
    );
    assert.equal(
      await count(target.db, `select count(*) as n from record_file where file_hash is null or load_start is null or load_end is null`),
      0,
    );
  });

  it("cleans up after an interrupted load there, the partitions' indexes included", async () => {
    const indexes = await captureIndexes(target.db, GENERATED_TABLES);
    await markLoading(target.db, 'tiny', SEED, indexes);
    await dropIndexes(target.db, indexes);
    const left = await captureIndexes(target.db, GENERATED_TABLES);
    assert.ok(
      !left.some((d) => d.table.startsWith('account_balance') || d.table.startsWith('transaction_hash')),
      'dropped through the partitioned parents',
    );
    const result = await generateDataset(target, { scale: 'tiny', seed: SEED });
    assert.equal(result.cleanedIncomplete, true);
    assert.deepEqual(await captureIndexes(target.db, GENERATED_TABLES), indexes);
    assert.equal(await count(target.db, `select count(*) as n from pg_index where not indisvalid`), 0);
    assert.deepEqual(result.summary.rows, summary.rows);
  });

  it('answers through the app as a SELECT-only role with migrations off', async () => {
    reader = await createReaderRole(scratch, adminUrl);
    readerDb = await openPostgres({ url: reader.url, poolSize: 2, statementTimeoutMs: 20_000, connectionTimeoutMs: 5_000 });
    await assert.rejects(readerDb.query('delete from record_file'), /permission denied/);
    const config = configWith({ db: { migrate: false } });
    app = await buildApp({ config, db: readerDb, clock: systemClock, logger: createLogger('silent') });
    const get = async (url: string) => {
      const res = await app!.inject({ method: 'GET', url });
      return { status: res.statusCode, body: parseJson(res.body) as any };
    };
    const blocks = await get('/api/v1/blocks');
    assert.equal(blocks.status, 200);
    assert.equal(blocks.body.blocks[0].number, summary.blocks - 1);
    // transfers are aggregated over the schema's DOMAIN columns (which once answered 500)
    const hub = await get(`/api/v1/accounts/0.0.${summary.hubs.exchange}?limit=25`);
    assert.equal(hub.status, 200);
    assert.equal(hub.body.transactions.length, 25);
    assert.ok(hub.body.transactions.every((t: { transfers: unknown[] }) => t.transfers.length > 0));
    // every bench mix drawn from it, as the mix expects (a bounded share of each)
    const mixes = buildMixes(await sampleDataset(target.db, summary), SEED);
    for (const name of ENDPOINT_TARGETS) {
      const distinct = [...new Map(mixes[name].map((r) => [r.path, r])).values()];
      for (const request of distinct.slice(0, 60)) {
        const res = await app.inject({ method: 'GET', url: request.path });
        assert.ok(
          meetsExpectation(res.statusCode, request.expect),
          `${name}: ${res.statusCode} for ${request.path} (${request.kind}, expected ${request.expect})`,
        );
      }
    }
  });
});
