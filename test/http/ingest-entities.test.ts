/**
 * The entity applier on the real testnet v2 record files (10 CryptoCreate, 5 CryptoDelete, 19
 * transfers): the created accounts, their deletion and their balances through
 * `/api/v1/accounts/{id}`. The expected values come from the rows the ingester writes for the
 * transactions themselves (`transaction`, `crypto_transfer`), never from the entity rows.
 */
import { describe, it } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { formatEntityId } from '../../src/domain/entityId.js';
import { readTransactionBody } from '../../src/ingest/proto/transactionDetails.js';
import { readEntityBody } from '../../src/ingest/proto/entityBodies.js';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import { get, useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';
import { recordStreamBucket, testBookPath } from '../support/streamBuckets.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

const CRYPTO_CREATE = 11;
const CRYPTO_DELETE = 12;
const SUCCESS = 22;
const secNs = (ns: bigint) => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

describe('entities from the testnet v2 record files', () => {
  const harness = useHarness();

  it('gives the created accounts, their deletion and their balances through /api/v1/accounts/{id}', async (t) => {
    const h = harness();
    if (await isMirrorNodeDatabase(h.db)) return t.skip('a mirror node database is never written');
    await h.prepare({});
    const bucket = recordStreamBucket('v2');
    t.after(() => bucket.dispose());
    await ingestOnce(h.db, h.config, bucket.root, { addressBook: testBookPath('testnet') });

    const txs = await h.db.query<{ consensus_timestamp: bigint; type: number; result: number; entity_id: bigint | null }>(
      'select consensus_timestamp, type, result, entity_id from transaction order by consensus_timestamp',
    );
    const creates = txs.filter((x) => x.type === CRYPTO_CREATE && x.result === SUCCESS);
    const deletes = txs.filter((x) => x.type === CRYPTO_DELETE && x.result === SUCCESS);
    assert.equal(creates.length, 10, 'the README counts 10 CryptoCreate');
    assert.equal(deletes.length, 5, 'and 5 CryptoDelete');
    const deletedAt = new Map(deletes.map((x) => [x.entity_id!, x.consensus_timestamp]));

    for (const create of creates) {
      const id = create.entity_id!;
      const account = formatEntityId(id)!;
      const [sum] = await h.db.query<{ balance: bigint; last: bigint }>(
        'select sum(amount)::bigint as balance, max(consensus_timestamp) as last from crypto_transfer where entity_id = $1',
        [id],
      );
      const res = await get(h, `/api/v1/accounts/${account}?transactions=false`);
      assert.equal(res.status, 200, account);
      const body = res.body;
      assert.equal(body.account, account);
      assert.equal(body.created_timestamp, secNs(create.consensus_timestamp), `${account} created`);
      assert.equal(body.deleted, deletedAt.has(id), `${account} deleted`);
      // created with a balance of 0 at its creation, then each transfer (none for some)
      assert.equal(BigInt(body.balance.balance), sum!.balance ?? 0n, `${account} balance: the sum of its transfers`);
      assert.equal(body.balance.timestamp, secNs(sum!.last ?? create.consensus_timestamp), `${account} balance timestamp`);
      assert.equal(body.key?._type, 'ED25519', `${account} key`);
      // v2 files predate HAPI 0.27: no staking attributes from the bodies, the column defaults
      assert.equal(body.decline_reward, false);
      assert.equal(body.staked_node_id, null);
      assert.equal(body.stake_period_start, null);
      assert.equal(body.ethereum_nonce, 0);
    }

    // each deleted account: one history row, the version from its creation to its deletion
    for (const [id, at] of deletedAt) {
      const history = await h.db.query<{ timestamp_range: string; deleted: boolean }>(
        'select timestamp_range::text as timestamp_range, deleted from entity_history where id = $1',
        [id],
      );
      const created = creates.find((c) => c.entity_id === id)!.consensus_timestamp;
      assert.deepEqual(history, [{ timestamp_range: `[${created},${at})`, deleted: false }], formatEntityId(id)!);
      const [row] = await h.db.query<{ timestamp_range: string; obtainer_id: bigint | null }>(
        'select timestamp_range::text as timestamp_range, obtainer_id from entity where id = $1',
        [id],
      );
      assert.equal(row!.timestamp_range, `[${at},)`);
      assert.notEqual(row!.obtainer_id, null);
      // through the API: not deleted as of its creation, deleted as of its deletion
      const account = formatEntityId(id)!;
      const before = await get(h, `/api/v1/accounts/${account}?transactions=false&timestamp=${secNs(created)}`);
      assert.equal(before.status, 200, account);
      assert.equal(before.body.deleted, false, `${account} at its creation`);
      const after = await get(h, `/api/v1/accounts/${account}?transactions=false&timestamp=${secNs(at)}`);
      assert.equal(after.body.deleted, true, `${account} at its deletion`);
    }

    // the stored key is each CryptoCreate body's Key, byte for byte (read from the files here)
    const dir = join(STREAMS_DIR, 'recordstreams/v2/record0.0.3');
    let compared = 0;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.rcd'))) {
      for (const item of readRecordFile(name, readFileSync(join(dir, name))).items) {
        const body = readTransactionBody(item.transactionBytes)!;
        const createdAt = creates.find((c) => c.consensus_timestamp === item.consensusTimestamp);
        if (body.type !== CRYPTO_CREATE || !createdAt) continue;
        const [row] = await h.db.query<{ key: Uint8Array }>('select key from entity where id = $1', [createdAt.entity_id]);
        assert.deepEqual(Buffer.from(row!.key), readEntityBody(CRYPTO_CREATE, body.data)!.key);
        compared++;
      }
    }
    assert.equal(compared, 10);

    // accounts only seen in transfers (payers, nodes, 0.0.98) get no row: the importer only updates stored rows
    const entities = await h.db.query<{ n: bigint }>('select count(*) as n from entity');
    assert.equal(entities[0]!.n, 10n);
    const node = await get(h, '/api/v1/accounts/0.0.3?transactions=false');
    assert.equal(node.status, 404);
  });
});
