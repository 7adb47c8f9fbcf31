import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CheckoutGate, GROW_RETRY_MIN_MS } from '../../src/db/checkoutGate.js';
import { isCapacityFailure, isPreparedStatementFailure, SetupTimeoutError } from '../../src/db/connectionFailures.js';
import { loadConfig } from '../../src/config.js';

const gate = (size: number, now: { t: number }, reasons: string[] = []) =>
  new CheckoutGate(
    size,
    50,
    (r) => reasons.push(r),
    () => now.t,
  );

describe('CheckoutGate', () => {
  it('admits up to the pool size, then queues in arrival order and counts the waits', async () => {
    const now = { t: 0 };
    const reasons: string[] = [];
    const g = gate(2, now, reasons);
    await g.enter();
    await g.enter();
    const order: number[] = [];
    const a = g.enter().then(() => order.push(1));
    const b = g.enter().then(() => order.push(2));
    assert.equal(g.waiting, 2);
    g.leave();
    g.leave();
    await Promise.all([a, b]);
    assert.deepEqual(order, [1, 2]);
    assert.equal(g.waits, 2);
    assert.deepEqual(reasons, ['pool full', 'pool full']);
  });

  it('fails a wait after the connection timeout with the busy-pool error', async () => {
    const g = gate(1, { t: 0 });
    await g.enter();
    await assert.rejects(g.enter(), /timeout exceeded when trying to connect/);
    assert.equal(g.waiting, 0);
  });

  it('holds to the open connections after a refusal, then grows again, later after refusals that follow closely', async () => {
    const now = { t: 0 };
    const reasons: string[] = [];
    const g = gate(4, now, reasons);
    g.limitTo(1);
    assert.equal(g.capacity(), 1);
    await g.enter();
    const waiting = g.enter();
    assert.deepEqual(reasons, ['connection limit']);
    g.leave();
    await waiting;
    now.t += GROW_RETRY_MIN_MS;
    assert.equal(g.capacity(), 4);
    g.limitTo(2);
    now.t += GROW_RETRY_MIN_MS;
    assert.equal(g.capacity(), 2, 'a refusal soon after the last one doubles the pause');
    now.t += GROW_RETRY_MIN_MS;
    assert.equal(g.capacity(), 4);
  });
});

describe('connection failures', () => {
  it('tells a server refusing more connections from other failures', () => {
    assert.ok(isCapacityFailure(Object.assign(new Error('sorry, too many clients already'), { code: '53300' })));
    assert.ok(isCapacityFailure(new Error('remaining connection slots are reserved for non-replication superuser connections')));
    assert.ok(isCapacityFailure(new SetupTimeoutError(1000)));
    assert.ok(!isCapacityFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })));
  });

  it('tells named statements lost to a pooler in transaction mode', () => {
    assert.ok(isPreparedStatementFailure({ code: '42P05', message: 'prepared statement "lqs_x" already exists' }));
    assert.ok(isPreparedStatementFailure({ code: '26000', message: 'prepared statement "lqs_x" does not exist' }));
    assert.ok(!isPreparedStatementFailure({ code: '42P01' }));
  });
});

describe('db settings for poolers', () => {
  it('reads db.preparedStatements and db.lockTimeoutMs, and keeps the lock timeout below the statement timeout', () => {
    const config = loadConfig({ LQS_DB_PREPAREDSTATEMENTS: 'false', LQS_DB_LOCKTIMEOUTMS: '500' }, undefined, () => undefined);
    assert.equal(config.db.preparedStatements, false);
    assert.equal(config.db.lockTimeoutMs, 500);
    assert.throws(
      () => loadConfig({ LQS_DB_LOCKTIMEOUTMS: '20000' }, undefined, () => undefined),
      /LQS_DB_LOCKTIMEOUTMS \(db\.lockTimeoutMs\): 20000 is not a number of milliseconds from 0 to below db\.statementTimeoutMs/,
    );
  });
});
