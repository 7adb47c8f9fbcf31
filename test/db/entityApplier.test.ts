/**
 * The entity applier's statements on the database (both backends): a file's versions written to
 * `entity` and `entity_history` against the stored rows, and its changes without history folded into
 * the stored rows by one update with the importer's rules (accounts' balances from 0, none for a
 * file without one, the ethereum nonce's default for accounts only, unknown ids left out).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import { isMirrorNodeDatabase } from '../../src/db/schemaRequirements.js';
import { TYPE } from '../../src/ingest/proto/entityBodies.js';
import { applyEntities } from '../../src/ingest/state/entities/entityApplier.js';
import type { RecordFile } from '../../src/ingest/recordFile.js';
import type { AcceptedFile } from '../../src/ingest/writers/recordFileWriter.js';
import { type DecodedTransaction, emptyRows } from '../../src/ingest/writers/transactionRows.js';
import { useHarness } from '../support/harness.js';

const T0 = 1_700_000_000_000_000_000n;

function transaction(type: number, at: bigint, data: Uint8Array, transfers: [bigint, bigint][], created: bigint | null = null) {
  return {
    consensusTimestamp: at,
    parentConsensusTimestamp: null,
    index: 0,
    record: Buffer.alloc(0),
    body: { type, data: Buffer.from(data) },
    outcome: {
      result: 22,
      chargedFee: 0n,
      transactionHash: null,
      receiptEntityId: created,
      transfers: transfers.map(([accountId, amount]) => ({ accountId, amount, isApproval: false })),
      tokenTransfers: [],
      stakingRewards: [],
      parentConsensusTimestamp: null,
    },
  } as unknown as DecodedTransaction;
}

function file(...decoded: DecodedTransaction[]): AcceptedFile {
  const rows = emptyRows();
  rows.decoded.push(...decoded);
  return { file: { hapiVersion: { major: 0, minor: 50, patch: 0 } } as RecordFile, nodeId: null, rows };
}

/** CryptoUpdate of `num` setting its memo (StringValue 14). */
function updateMemo(num: number, memo: string): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((2 << 3) | 2)
    .fork()
    .uint32(3 << 3)
    .int64(num)
    .ldelim();
  w.uint32((14 << 3) | 2)
    .fork()
    .uint32((1 << 3) | 2)
    .string(memo)
    .ldelim();
  return w.finish();
}

describe('the entity applier on the database', () => {
  const harness = useHarness();

  it('versions to entity and entity_history, changes without history folded into the stored rows', async (t) => {
    const h = harness();
    if (await isMirrorNodeDatabase(h.db)) return t.skip('a mirror node database is never written');
    await h.prepare({});
    await h.db.query(
      `insert into entity (id, shard, realm, num, type, balance, balance_timestamp, created_timestamp, timestamp_range, memo, ethereum_nonce)
       values (1001, 0, 0, 1001, 'ACCOUNT', 100, 1, 1, '[1,)', 'stored', null),
              (1002, 0, 0, 1002, 'ACCOUNT', null, null, 1, '[1,)', '', 4),
              (150, 0, 0, 150, 'FILE', null, null, 1, '[1,)', '', null)`,
    );
    await h.db.transaction((tx) =>
      applyEntities(
        tx,
        file(
          transaction(14, T0, new Uint8Array(), [
            [1001n, -7n],
            [1002n, 5n],
            [150n, 2n],
            [98n, 1n],
            [2n, -1n],
          ]),
          transaction(TYPE.CRYPTO_CREATE, T0 + 1n, new Uint8Array(), [[1003n, 10n]], 1003n),
          transaction(TYPE.CRYPTO_UPDATE, T0 + 2n, updateMemo(1003, 'later'), []),
        ),
        { shardRealm: { shard: 0n, realm: 0n }, network: null },
      ),
    );
    const rows = await h.db.query<Record<string, unknown>>(
      'select id, type::text as type, balance, balance_timestamp, ethereum_nonce, memo, timestamp_range::text as range from entity order by id',
    );
    assert.deepEqual(rows, [
      { id: 150n, type: 'FILE', balance: null, balance_timestamp: T0, ethereum_nonce: null, memo: '', range: '[1,)' },
      { id: 1001n, type: 'ACCOUNT', balance: 93n, balance_timestamp: T0, ethereum_nonce: 0n, memo: 'stored', range: '[1,)' },
      { id: 1002n, type: 'ACCOUNT', balance: 5n, balance_timestamp: T0, ethereum_nonce: 4n, memo: '', range: '[1,)' },
      { id: 1003n, type: 'ACCOUNT', balance: 10n, balance_timestamp: T0 + 1n, ethereum_nonce: 0n, memo: 'later', range: `[${T0 + 2n},)` },
    ]);
    const history = await h.db.query<Record<string, unknown>>(
      'select id, balance, memo, timestamp_range::text as range from entity_history order by id',
    );
    assert.deepEqual(history, [{ id: 1003n, balance: 10n, memo: '', range: `[${T0 + 1n},${T0 + 2n})` }]);

    // a later file: the stored row closes at its update, with the balance it had
    await h.db.transaction((tx) =>
      applyEntities(tx, file(transaction(TYPE.CRYPTO_UPDATE, T0 + 10n, updateMemo(1001, 'updated'), [[1001n, -3n]])), {
        shardRealm: { shard: 0n, realm: 0n },
        network: null,
      }),
    );
    const [updated] = await h.db.query<Record<string, unknown>>(
      'select balance, memo, timestamp_range::text as range, created_timestamp from entity where id = 1001',
    );
    assert.deepEqual(updated, { balance: 90n, memo: 'updated', range: `[${T0 + 10n},)`, created_timestamp: 1n });
    const closed = await h.db.query<Record<string, unknown>>(
      'select balance, memo, timestamp_range::text as range from entity_history where id = 1001',
    );
    assert.deepEqual(closed, [{ balance: 93n, memo: 'stored', range: `[1,${T0 + 10n})` }]);
  });
});
