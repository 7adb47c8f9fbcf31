import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DatabaseUnavailableError, type Db, type Row } from '../../src/db/db.js';
import { REPLAY_LAG_SQL, ReplicatedDb } from '../../src/db/replicas.js';

/** A Db that records who ran what, answers the lag check with `lag`, and fails while `failure` is set. */
function fakeDb(name: string, served: string[]) {
  const state = { lag: 0, failure: null as Error | null };
  const db: Db = {
    backend: 'postgres',
    async query<R = Row>(text: string): Promise<R[]> {
      if (state.failure) throw state.failure;
      if (text === REPLAY_LAG_SQL) return [{ lag_ms: state.lag }] as R[];
      served.push(name);
      return [{ from: name }] as R[];
    },
    async exec() {
      served.push(`${name}:exec`);
    },
    transaction: async (fn) => fn({ query: async <R>() => [{ from: `${name}:tx` }] as R[] }),
    async ping() {
      if (state.failure) throw state.failure;
    },
    async refreshTypes() {},
    async close() {},
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
  };
  return { db, state };
}

async function replicated(options = { maxLagMs: 1000, checkIntervalMs: 60_000 }) {
  const served: string[] = [];
  const primary = fakeDb('primary', served);
  const r1 = fakeDb('replica1', served);
  const r2 = fakeDb('replica2', served);
  const db = new ReplicatedDb(primary.db, [r1.db, r2.db], options);
  await db.check();
  return { db, served, primary, r1, r2 };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

describe('ReplicatedDb', () => {
  it('spreads reads round-robin over the replicas, writes and transactions on the primary', async () => {
    const { db, served } = await replicated();
    for (let i = 0; i < 4; i++) await db.query('select 1');
    await db.exec('select 1');
    assert.deepEqual(await db.transaction((tx) => tx.query('select 1')), [{ from: 'primary:tx' }]);
    assert.deepEqual(await db.transaction((tx) => tx.query('select 1'), { readOnly: true }), [{ from: 'replica1:tx' }]);
    assert.deepEqual(served, ['replica1', 'replica2', 'replica1', 'replica2', 'primary:exec']);
    assert.deepEqual(
      db.pools().map((p) => [p.name, p.state, p.queries]),
      [
        ['primary', 'up', 0],
        ['replica1', 'up', 3],
        ['replica2', 'up', 2],
      ],
    );
    assert.deepEqual(db.poolStats(), { total: 3, idle: 3, waiting: 0, waits: 0 });
    await db.close();
  });

  it('retries a read that failed for the connection on the primary and takes the replica out until a check finds it again', async () => {
    const { db, served, r1 } = await replicated();
    r1.state.failure = refused();
    assert.deepEqual(await db.query('select 1'), [{ from: 'primary' }]);
    assert.equal(db.pools()[1]!.state, 'down');
    await db.query('select 1');
    await db.query('select 1');
    assert.deepEqual(served, ['primary', 'replica2', 'replica2']);
    await db.check();
    assert.equal(db.pools()[1]!.state, 'down', 'still failing');
    r1.state.failure = null;
    await db.check();
    assert.equal(db.pools()[1]!.state, 'up');
    await db.close();
  });

  it('does not retry a failed statement (the query is at fault) nor a statement timeout', async () => {
    const { db, r1 } = await replicated();
    r1.state.failure = Object.assign(new Error('relation does not exist'), { code: '42P01' });
    await assert.rejects(db.query('select 1'), /relation does not exist/);
    assert.equal(db.pools()[1]!.state, 'up');
    r1.state.failure = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    await db.query('select 1'); // replica2
    await assert.rejects(db.query('select 1'), /statement timeout/);
    assert.equal(db.pools()[1]!.state, 'up');
    await db.close();
  });

  it('takes a lagging replica out of the rotation, and reads go to the primary when none is in it', async () => {
    const { db, served, r1, r2 } = await replicated();
    r1.state.lag = 5000;
    r2.state.failure = new DatabaseUnavailableError('down');
    await db.check();
    assert.deepEqual(
      db.pools().map((p) => [p.name, p.state, p.lagMs]),
      [
        ['primary', 'up', null],
        ['replica1', 'lagging', 5000],
        ['replica2', 'down', 0],
      ],
    );
    await db.query('select 1');
    assert.deepEqual(served, ['primary']);
    r1.state.lag = 10;
    await db.check();
    await db.query('select 1');
    assert.deepEqual(served, ['primary', 'replica1']);
    await db.close();
  });

  it('reads the newest data on the primary, on a replica only while the primary cannot be reached', async () => {
    const { db, primary } = await replicated();
    assert.deepEqual(await db.primary().query('select 1'), [{ from: 'primary' }]);
    primary.state.failure = refused();
    assert.deepEqual(await db.primary().query('select 1'), [{ from: 'replica1' }]);
    await db.ping(); // ready: a replica answers
    await db.check();
    assert.equal(db.pools()[0]!.state, 'down');
    await db.close();
  });

  it('is configured by db.replicas (LQS_DB_REPLICAS, comma-separated) beside db.url', () => {
    const config = loadConfig(
      { DATABASE_URL: 'postgres://u@a/db', LQS_DB_REPLICAS: 'postgres://u@b/db,postgres://u@c/db', LQS_DB_MAXREPLICALAGMS: '2000' },
      undefined,
      () => {},
    );
    assert.deepEqual(config.db.replicas, ['postgres://u@b/db', 'postgres://u@c/db']);
    assert.equal(config.db.maxReplicaLagMs, 2000);
    assert.deepEqual(config.db.primaryReads, ['blocks']);
    assert.throws(
      () => loadConfig({ LQS_DB_REPLICAS: 'postgres://u@b/db' }, undefined, () => {}),
      (e: unknown) => e instanceof ConfigError && /need the primary/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://u@a/db', LQS_DB_REPLICAS: 'b:5432' }, undefined, () => {}),
      /LQS_DB_REPLICAS \(db.replicas\): "b:5432" is not a PostgreSQL URL/,
    );
    assert.throws(() => loadConfig({ LQS_DB_PRIMARYREADS: 'accounts' }, undefined, () => {}), /"accounts" is not one of blocks/);
  });
});
