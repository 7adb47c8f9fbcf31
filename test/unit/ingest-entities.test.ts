/**
 * The entity applier's parts: body decoding (entityBodies), the public key and EVM address
 * derivations, the importer's in-memory merge (entityVersion) and the rows it gives against a
 * stored row (entityRows).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import { aliasToEvmAddress } from '../../src/domain/aliasEvmAddress.js';
import { keccak256 } from '../../src/domain/keccak.js';
import { publicKeyOf } from '../../src/domain/publicKey.js';
import { readEntityBody, readRecordEntityDetails, TYPE, timestampNanosMax } from '../../src/ingest/proto/entityBodies.js';
import {
  type BalanceUpdate,
  balanceUpdate,
  closedAt,
  type EntityRow,
  type EntityWrites,
  entityRows,
} from '../../src/ingest/state/entities/entityRows.js';
import { EntityChanges, type EntityVersion } from '../../src/ingest/state/entities/entityVersion.js';
import { addTransactionEntities, epochDay } from '../../src/ingest/state/entities/transactionEntities.js';
import type { DecodedTransaction } from '../../src/ingest/writers/transactionRows.js';

const { Writer } = protobuf;
type W = protobuf.Writer;
const LEN = 2;
const VARINT = 0;

/** A message built field by field, one writer call per part. */
function message(...parts: ((w: W) => unknown)[]): Uint8Array {
  const w = Writer.create();
  for (const part of parts) part(w);
  return w.finish();
}
const bytesField = (w: W, field: number, value: Uint8Array) => w.uint32((field << 3) | LEN).bytes(value);
const varintField = (w: W, field: number, value: number | bigint) => w.uint32((field << 3) | VARINT).int64(value.toString());
const accountId = (num: number) => message((w) => varintField(w, 3, num));
const duration = (seconds: number) => message((w) => varintField(w, 1, seconds));
const stringValue = (s: string) => message((w) => w.uint32((1 << 3) | LEN).string(s));
const boolValue = (b: boolean) => message((w) => varintField(w, 1, b ? 1 : 0));

const ED25519 = Buffer.from('1220' + 'ab'.repeat(32), 'hex');
const ED25519_HEX = 'ab'.repeat(32);
// secp256k1's generator point: the public key of private key 1, whose Ethereum address is well known
const G_COMPRESSED = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const G_ADDRESS = '7e5f4552091a69125d5dfcb7b8c2659029395bdf';

describe('entity bodies', () => {
  it('CryptoCreate: its key as sent, proto3 defaults, staking and alias', () => {
    const data = message((w) => {
      bytesField(w, 1, ED25519);
      bytesField(w, 9, duration(7776000));
      w.uint32((13 << 3) | LEN).string('a memo');
      varintField(w, 14, 5);
      varintField(w, 16, 3);
      bytesField(w, 18, Buffer.from('3a21' + G_COMPRESSED, 'hex'));
    });
    const body = readEntityBody(TYPE.CRYPTO_CREATE, data)!;
    assert.deepEqual(body.key, ED25519);
    assert.equal(body.autoRenewPeriod, 7776000n);
    assert.equal(body.memo, 'a memo');
    assert.equal(body.maxAutomaticTokenAssociations, 5);
    assert.equal(body.receiverSigRequired, false, 'a proto3 bool is always set');
    assert.equal(body.declineReward, false);
    assert.equal(body.stakedNodeId, 3n);
    assert.equal(body.stakedAccountId, undefined);
    assert.equal(body.alias?.toString('hex'), '3a21' + G_COMPRESSED);
    const empty = readEntityBody(
      TYPE.CRYPTO_CREATE,
      message(() => {}),
    )!;
    assert.equal(empty.memo, '');
    assert.equal(empty.key, undefined);
  });

  it('CryptoUpdate: only what the wrappers set', () => {
    const data = message((w) => {
      bytesField(w, 2, accountId(1001));
      bytesField(w, 14, stringValue(''));
      bytesField(w, 13, boolValue(true));
      bytesField(w, 16, accountId(800));
      bytesField(w, 18, boolValue(false));
    });
    const body = readEntityBody(TYPE.CRYPTO_UPDATE, data)!;
    assert.equal(body.target, 1001n);
    assert.equal(body.memo, '', 'a StringValue holding "" sets the memo to ""');
    assert.equal(body.receiverSigRequired, true);
    assert.equal(body.stakedAccountId, 800n);
    assert.equal(body.declineReward, false);
    assert.equal(body.key, undefined);
    assert.equal(body.maxAutomaticTokenAssociations, undefined);
    assert.equal(body.expirationTimestamp, undefined);
  });

  it('ContractUpdate: the deprecated memo only when not empty; expiry clamped to int64', () => {
    const plain = readEntityBody(
      TYPE.CONTRACT_UPDATE,
      message((w) => w.uint32((9 << 3) | LEN).string('')),
    )!;
    assert.equal(plain.memo, undefined);
    const wrapper = readEntityBody(
      TYPE.CONTRACT_UPDATE,
      message((w) => bytesField(w, 10, stringValue(''))),
    )!;
    assert.equal(wrapper.memo, '');
    const far = message((w) => varintField(w, 1, 9_000_000_000_000_000_000n));
    assert.equal(timestampNanosMax(far), (1n << 63n) - 1n);
    assert.equal(
      timestampNanosMax(
        message(
          (w) => varintField(w, 1, 2),
          (w) => varintField(w, 2, 5),
        ),
      ),
      2_000_000_005n,
    );
  });

  it('deletions name their target and obtainer; types without entity attributes give none', () => {
    const del = readEntityBody(
      TYPE.CRYPTO_DELETE,
      message(
        (w) => bytesField(w, 1, accountId(98)),
        (w) => bytesField(w, 2, accountId(1002)),
      ),
    )!;
    assert.equal(del.target, 1002n);
    assert.equal(del.obtainerId, 98n);
    const sys = readEntityBody(
      TYPE.SYSTEM_DELETE,
      message((w) =>
        bytesField(
          w,
          2,
          message((c) => varintField(c, 3, 1003)),
        ),
      ),
    )!;
    assert.equal(sys.target, 1003n);
    assert.equal(sys.targetIsContract, true);
    assert.equal(
      readEntityBody(
        14,
        message(() => {}),
      ),
      null,
      'CryptoTransfer',
    );
  });

  it('the record: alias 16, evm_address 21 and the created contract evm address', () => {
    const evm = Buffer.alloc(20, 7);
    const record = message((w) => {
      bytesField(w, 16, Buffer.from('abcd', 'hex'));
      bytesField(w, 21, evm);
      bytesField(
        w,
        8,
        message((c) =>
          bytesField(
            c,
            9,
            message((v) => bytesField(v, 1, evm)),
          ),
        ),
      );
    });
    const details = readRecordEntityDetails(record);
    assert.equal(details.alias?.toString('hex'), 'abcd');
    assert.deepEqual(details.evmAddress, evm);
    assert.deepEqual(details.contractEvmAddress, evm);
  });
});

describe('keys and addresses', () => {
  it('keccak-256 (not SHA3-256)', () => {
    assert.equal(keccak256(Buffer.alloc(0)).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.equal(keccak256(Buffer.from('abc')).toString('hex'), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    // longer than one 136-byte block
    assert.equal(
      keccak256(Buffer.alloc(200, 0x61)).toString('hex'),
      keccak256(Buffer.concat([Buffer.alloc(100, 0x61), Buffer.alloc(100, 0x61)])).toString('hex'),
    );
  });

  it("an alias's EVM address: a 20-byte alias itself, an ECDSA key's Keccak address, else none", () => {
    assert.equal(aliasToEvmAddress(Buffer.from('3a21' + G_COMPRESSED, 'hex'))?.toString('hex'), G_ADDRESS);
    assert.equal(aliasToEvmAddress(Buffer.from(G_ADDRESS, 'hex'))?.toString('hex'), G_ADDRESS);
    assert.equal(aliasToEvmAddress(ED25519), null);
    assert.equal(aliasToEvmAddress(Buffer.alloc(5)), null);
  });

  it('the public key: a primitive key alone or in a one-key list, at most two levels deep', () => {
    assert.equal(publicKeyOf(ED25519), ED25519_HEX);
    const list = message((w) =>
      bytesField(
        w,
        6,
        message((l) => bytesField(l, 1, ED25519)),
      ),
    );
    assert.equal(publicKeyOf(list), ED25519_HEX);
    const oneKeyList = message((l) => bytesField(l, 1, ED25519));
    const threshold = message((w) =>
      bytesField(
        w,
        5,
        message(
          (t) => varintField(t, 1, 1),
          (t) => bytesField(t, 2, oneKeyList),
        ),
      ),
    );
    assert.equal(publicKeyOf(threshold), ED25519_HEX);
    const deep = message((w) =>
      bytesField(
        w,
        6,
        message((l) => bytesField(l, 1, list)),
      ),
    );
    assert.equal(publicKeyOf(deep), null, 'three levels');
    const two = message((w) =>
      bytesField(
        w,
        6,
        message(
          (l) => bytesField(l, 1, ED25519),
          (l) => bytesField(l, 1, ED25519),
        ),
      ),
    );
    assert.equal(publicKeyOf(two), null);
    assert.equal(publicKeyOf(Buffer.from([0xff])), null, 'not a Key');
  });
});

const T0 = 1_700_000_000_000_000_000n;

function transaction(
  type: number,
  at: bigint,
  data: Uint8Array,
  outcome: { result?: number; created?: bigint; transfers?: [bigint, bigint][]; rewards?: [bigint, bigint][] } = {},
): DecodedTransaction {
  return {
    consensusTimestamp: at,
    parentConsensusTimestamp: null,
    index: 0,
    record: Buffer.alloc(0),
    body: { type, data: Buffer.from(data) } as DecodedTransaction['body'],
    outcome: {
      result: outcome.result ?? 22,
      chargedFee: 0n,
      transactionHash: null,
      receiptEntityId: outcome.created ?? null,
      transfers: (outcome.transfers ?? []).map(([accountId, amount]) => ({ accountId, amount, isApproval: false })),
      tokenTransfers: [],
      stakingRewards: (outcome.rewards ?? []).map(([accountId, amount]) => ({ accountId, amount, isApproval: false })),
      parentConsensusTimestamp: null,
    },
  };
}

function changesOf(...txs: DecodedTransaction[]): EntityChanges {
  const changes = new EntityChanges();
  for (const d of txs) addTransactionEntities(changes, d, { hapi: { major: 0, minor: 72 } });
  return changes;
}

/** What the applier writes for the changes: rows of the versioned entities, balance updates of the others. */
function rowsOf(changes: EntityChanges, stored: EntityRow[] = []): EntityWrites & { updates: BalanceUpdate[] } {
  const writes: EntityWrites = { history: [], current: [] };
  const updates: BalanceUpdate[] = [];
  const byId = new Map(stored.map((r) => [r.id, r]));
  for (const id of changes.ids()) {
    const versions = changes.versions.get(id)!;
    if (versions[0]!.range === null) updates.push(balanceUpdate(versions[0]!));
    else entityRows(versions, byId.get(id), writes);
  }
  return { ...writes, updates };
}

function storedAccount(id: bigint, balance: bigint, from: bigint): EntityRow {
  return {
    id,
    shard: 0n,
    realm: 0n,
    num: id,
    timestamp_range: `[${from},)`,
    alias: null,
    auto_renew_account_id: null,
    auto_renew_period: 7776000n,
    balance,
    balance_timestamp: from,
    created_timestamp: from,
    decline_reward: false,
    deleted: false,
    delegation_address: null,
    ethereum_nonce: 0n,
    evm_address: null,
    expiration_timestamp: null,
    key: ED25519,
    max_automatic_token_associations: 0,
    memo: 'stored',
    obtainer_id: null,
    permanent_removal: null,
    proxy_account_id: null,
    public_key: ED25519_HEX,
    receiver_sig_required: false,
    stake_period_start: -1n,
    staked_account_id: null,
    staked_node_id: -1n,
    type: 'ACCOUNT',
  };
}

const createBody = message(
  (w) => bytesField(w, 1, ED25519),
  (w) => w.uint32((13 << 3) | LEN).string('new'),
);
const updateMemo = (id: number, memo: string) =>
  message(
    (w) => bytesField(w, 2, accountId(id)),
    (w) => bytesField(w, 14, stringValue(memo)),
  );

describe('merging a file’s changes and the rows they give', () => {
  it('a creation, transfers and an update in one file: one closed version, the current row with the summed balance', () => {
    const changes = changesOf(
      transaction(TYPE.CRYPTO_CREATE, T0, createBody, {
        created: 1001n,
        transfers: [
          [1001n, 500n],
          [2n, -500n],
        ],
      }),
      transaction(
        14,
        T0 + 1n,
        message(() => {}),
        {
          transfers: [
            [1001n, 20n],
            [2n, -20n],
          ],
        },
      ),
      transaction(TYPE.CRYPTO_UPDATE, T0 + 2n, updateMemo(1001, 'changed'), {
        transfers: [
          [1001n, -3n],
          [3n, 3n],
        ],
      }),
    );
    const { history, current } = rowsOf(changes);
    assert.equal(history.length, 1);
    assert.equal(history[0]!.timestamp_range, `[${T0},${T0 + 2n})`);
    assert.equal(history[0]!.memo, 'new');
    assert.equal(history[0]!.balance, 520n, 'the closed version keeps the balance it had');
    assert.equal(current.length, 1, 'accounts 2 and 3 only seen in transfers get no row');
    const row = current[0]!;
    assert.equal(row.timestamp_range, `[${T0 + 2n},)`);
    assert.equal(row.memo, 'changed');
    assert.equal(row.created_timestamp, T0);
    assert.equal(row.balance, 517n);
    assert.equal(row.balance_timestamp, T0 + 2n);
    assert.deepEqual(row.key, ED25519);
    assert.equal(row.public_key, ED25519_HEX);
    assert.equal(row.type, 'ACCOUNT');
    assert.equal(row.deleted, false);
    assert.equal(row.staked_node_id, -1n, 'column defaults where nothing sets a value');
    assert.equal(row.ethereum_nonce, 0n);
  });

  it("balance changes without a version: one update per entity, the file's sum and its last timestamp", () => {
    const changes = changesOf(
      transaction(14, T0 + 10n, message(), {
        transfers: [
          [1001n, -7n],
          [98n, 7n],
        ],
      }),
      transaction(14, T0 + 11n, message(), {
        transfers: [
          [1001n, -1n],
          [98n, 1n],
        ],
      }),
    );
    const { history, current, updates } = rowsOf(changes, [storedAccount(1001n, 100n, T0)]);
    assert.deepEqual(history, []);
    assert.deepEqual(current, [], 'no row rewritten');
    assert.deepEqual(updates, [
      { id: 1001n, delta: -8n, balance_timestamp: T0 + 11n, ethereum_nonce: null, stake_period_start: null },
      { id: 98n, delta: 8n, balance_timestamp: T0 + 11n, ethereum_nonce: null, stake_period_start: null },
    ]);
  });

  it('an update of a stored entity closes the stored row at the update, with the balance before the file', () => {
    const changes = changesOf(
      transaction(
        14,
        T0 + 5n,
        message(() => {}),
        {
          transfers: [
            [1001n, 10n],
            [2n, -10n],
          ],
        },
      ),
      transaction(TYPE.CRYPTO_UPDATE, T0 + 6n, updateMemo(1001, 'updated')),
      transaction(
        TYPE.CRYPTO_DELETE,
        T0 + 8n,
        message(
          (w) => bytesField(w, 1, accountId(98)),
          (w) => bytesField(w, 2, accountId(1001)),
        ),
      ),
    );
    const { history, current } = rowsOf(changes, [storedAccount(1001n, 100n, T0)]);
    assert.deepEqual(
      history.map((r) => [r.timestamp_range, r.memo, r.balance, r.deleted]),
      [
        [`[${T0},${T0 + 6n})`, 'stored', 100n, false],
        [`[${T0 + 6n},${T0 + 8n})`, 'updated', 110n, false],
      ],
    );
    assert.equal(current.length, 1);
    assert.deepEqual(
      [current[0]!.timestamp_range, current[0]!.deleted, current[0]!.obtainer_id, current[0]!.balance],
      [`[${T0 + 8n},)`, true, 98n, 110n],
    );
    assert.equal(current[0]!.created_timestamp, T0, 'kept from the stored row');
  });

  it('a stored range closed at a version keeps its lower bound, or its lack of one', () => {
    assert.equal(closedAt('[5,)', 9n), '[5,9)');
    assert.equal(closedAt('(,)', 9n), '(,9)');
  });

  it('a failed creation creates nothing, but its fee transfers count', () => {
    const changes = changesOf(
      transaction(TYPE.CRYPTO_CREATE, T0, createBody, {
        result: 7,
        created: 1001n,
        transfers: [
          [2n, -5n],
          [3n, 5n],
        ],
      }),
    );
    const { history, current, updates } = rowsOf(changes);
    assert.deepEqual(history, []);
    assert.deepEqual(current, []);
    assert.deepEqual(
      updates.map((u) => [u.id, u.delta]),
      [
        [2n, -5n],
        [3n, 5n],
      ],
    );
  });

  it('a transfer before the creation (a parent paying its child contract) merges into the created version', () => {
    const contract = transaction(
      TYPE.CONTRACT_CREATE,
      T0 + 1n,
      message(() => {}),
      { created: 1005n, transfers: [] },
    );
    const parent = transaction(
      7,
      T0,
      message(() => {}),
      {
        transfers: [
          [1005n, 50n],
          [2n, -50n],
        ],
      },
    );
    const { history, current } = rowsOf(changesOf(parent, contract));
    assert.deepEqual(history, []);
    assert.equal(current.length, 1);
    const row = current[0]!;
    assert.equal(row.type, 'CONTRACT');
    assert.equal(row.balance, 50n);
    assert.equal(row.balance_timestamp, T0, 'the transfer set it first');
    assert.equal(row.timestamp_range, `[${T0 + 1n},)`);
    assert.equal(row.key?.toString('hex'), '0a03' + '18ed07', 'the implicit contract key Key{contractID{contractNum 1005}}');
    assert.equal(row.ethereum_nonce, null, 'no nonce default for contracts');
  });

  it('a staking reward restarts the stake period the day before, once per day, as a new version', () => {
    const day = epochDay(T0);
    const changes = changesOf(
      transaction(
        14,
        T0,
        message(() => {}),
        {
          rewards: [[1001n, 9n]],
          transfers: [
            [1001n, 9n],
            [800n, -9n],
          ],
        },
      ),
      transaction(
        14,
        T0 + 1n,
        message(() => {}),
        {
          rewards: [[1001n, 1n]],
          transfers: [
            [1001n, 1n],
            [800n, -1n],
          ],
        },
      ),
    );
    assert.deepEqual(
      changes.versions.get(1001n)!.map((v: EntityVersion) => [v.range, v.attributes.stake_period_start]),
      [[{ lower: T0, upper: null }, day - 1n]],
    );
    const { history, current } = rowsOf(changes, [storedAccount(1001n, 100n, T0 - 100n)]);
    assert.equal(history.length, 1);
    assert.equal(current[0]!.stake_period_start, day - 1n);
    assert.equal(current[0]!.balance, 110n);
  });

  it("accounts created automatically: the record's alias as key and its EVM address; a hollow account's 20-byte alias", () => {
    const ecdsaAlias = Buffer.from('3a21' + G_COMPRESSED, 'hex');
    const auto = transaction(TYPE.CRYPTO_CREATE, T0, message(), { created: 1010n });
    auto.record = Buffer.from(message((w) => bytesField(w, 16, ecdsaAlias)));
    const hollowAddress = Buffer.from(G_ADDRESS, 'hex');
    const hollow = transaction(TYPE.CRYPTO_CREATE, T0 + 1n, message(), { created: 1011n });
    hollow.record = Buffer.from(
      message(
        (w) => bytesField(w, 16, hollowAddress),
        (w) => bytesField(w, 21, hollowAddress),
      ),
    );
    const { current } = rowsOf(changesOf(auto, hollow));
    const [a, h] = current;
    assert.deepEqual(a!.alias, ecdsaAlias);
    assert.deepEqual(a!.key, ecdsaAlias, 'no key in the body: the alias key');
    assert.equal(a!.public_key, G_COMPRESSED);
    assert.equal(a!.evm_address?.toString('hex'), G_ADDRESS, 'derived from the alias');
    assert.deepEqual(h!.alias, hollowAddress);
    assert.equal(h!.key, null, 'a hollow account has no key until it is finalized');
    assert.deepEqual(h!.evm_address, hollowAddress);
  });

  it("an EthereumTransaction's signer nonce, without history; none before the record carries it", () => {
    const result = (nonce: number | null) =>
      message(
        (w) => bytesField(w, 13, accountId(1001)),
        (w) =>
          nonce === null
            ? w
            : bytesField(
                w,
                15,
                message((v) => varintField(v, 1, nonce)),
              ),
      );
    const eth = (at: bigint, nonce: number | null) => {
      const d = transaction(
        50,
        at,
        message((w) => bytesField(w, 1, Buffer.from([0x02, 0xf8]))),
        { result: 33 },
      );
      d.record = Buffer.from(message((w) => bytesField(w, 7, result(nonce))));
      return d;
    };
    const changes = changesOf(eth(T0, 5), eth(T0 + 1n, null));
    const { history, updates } = rowsOf(changes);
    assert.deepEqual(history, []);
    assert.deepEqual(
      updates,
      [{ id: 1001n, delta: null, balance_timestamp: null, ethereum_nonce: 5n, stake_period_start: null }],
      'a failed transaction too; the second carries no nonce',
    );
  });

  it('SystemDelete and SystemUndelete take the type of what they name; an update may clear the auto-renew account', () => {
    const contract = message((w) =>
      bytesField(
        w,
        2,
        message((c) => varintField(c, 3, 1003)),
      ),
    );
    const file = message((w) =>
      bytesField(
        w,
        1,
        message((c) => varintField(c, 3, 150)),
      ),
    );
    const clear = message(
      (w) =>
        bytesField(
          w,
          1,
          message((c) => varintField(c, 3, 1004)),
        ),
      (w) => bytesField(w, 10, message()),
    );
    const { current } = rowsOf(
      changesOf(
        transaction(TYPE.SYSTEM_DELETE, T0, contract),
        transaction(TYPE.SYSTEM_UNDELETE, T0 + 1n, file),
        transaction(TYPE.TOKEN_UPDATE, T0 + 2n, clear),
      ),
    );
    assert.deepEqual(
      current.map((r) => [r.id, r.type, r.deleted, r.auto_renew_account_id, r.created_timestamp]),
      [
        [1003n, 'CONTRACT', true, null, null],
        [150n, 'FILE', false, null, null],
        [1004n, 'TOKEN', false, 0n, null],
      ],
    );
  });

  it('an update setting a staked node clears the staked account and starts a period today', () => {
    const data = message(
      (w) => bytesField(w, 2, accountId(1001)),
      (w) => varintField(w, 17, 2),
    );
    const { current } = rowsOf(changesOf(transaction(TYPE.CRYPTO_UPDATE, T0, data)), [storedAccount(1001n, 1n, T0 - 1n)]);
    assert.deepEqual([current[0]!.staked_node_id, current[0]!.staked_account_id, current[0]!.stake_period_start], [2n, 0n, epochDay(T0)]);
  });
});
