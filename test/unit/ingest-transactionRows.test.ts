/**
 * The per-transaction rows built from a stream's Transaction and TransactionRecord (and a block
 * stream's SignedTransaction and TransactionResult), on messages written here field by field.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { sha384 } from '../../src/ingest/hash.js';
import { recordItem } from '../../src/ingest/readers/items.js';
import { blockTransactionRows, recordItemRows } from '../../src/ingest/writers/transactionRows.js';
import { fileContents } from '../../src/ingest/verification/streamAddressBook.js';
import { ingestSummary, progressLine } from '../../src/ingest/progressLine.js';

type Field = [number, 'varint' | 'sint64' | 'bytes', bigint | number | Uint8Array | Field[]];

/** A message from [field, kind, value] triples; a Field[] value is a nested message. */
function message(fields: Field[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const [field, kind, value] of fields) {
    if (kind === 'varint') w.uint32((field << 3) | 0).int64(String(value) as unknown as number);
    else if (kind === 'sint64') w.uint32((field << 3) | 0).sint64(String(value) as unknown as number);
    else w.uint32((field << 3) | 2).bytes(Array.isArray(value) ? message(value as Field[]) : (value as Uint8Array));
  }
  return w.finish();
}

const id = (num: number): Field[] => [[3, 'varint', num]];
const timestamp = (seconds: number, nanos: number): Field[] => [
  [1, 'varint', seconds],
  [2, 'varint', nanos],
];
const accountAmount = (num: number, amount: bigint, approval = false): Field[] => [
  [1, 'bytes', id(num)],
  [2, 'sint64', amount],
  ...(approval ? ([[3, 'varint', 1]] as Field[]) : []),
];

function body(type: number, typeBody: Field[], nonce = 0): Uint8Array {
  return message([
    [
      1,
      'bytes',
      [[1, 'bytes', timestamp(1_700_000_000, 5)], [2, 'bytes', id(1001)], ...(nonce ? ([[4, 'varint', nonce]] as Field[]) : [])],
    ],
    [2, 'bytes', id(3)],
    [3, 'varint', 200_000_000],
    [4, 'bytes', [[1, 'varint', 120]]],
    [6, 'bytes', Buffer.from('a memo')],
    [type, 'bytes', typeBody],
  ]);
}

/** A record stream Transaction {signedTransactionBytes = SignedTransaction {bodyBytes}}. */
const transaction = (bodyBytes: Uint8Array) => message([[5, 'bytes', [[1, 'bytes', bodyBytes]]]]);

function record(status: number, extra: Field[] = []): Uint8Array {
  return message([
    [1, 'bytes', [[1, 'varint', status]]],
    [2, 'bytes', Buffer.alloc(48, 7)],
    [3, 'bytes', timestamp(1_700_000_001, 9)],
    [6, 'varint', 84_000],
    [
      10,
      'bytes',
      [
        [1, 'bytes', accountAmount(1001, -84_000n)],
        [1, 'bytes', accountAmount(3, 4_000n)],
        [1, 'bytes', accountAmount(98, 80_000n, true)],
      ],
    ],
    ...extra,
  ]);
}

const CONSENSUS = 1_700_000_001_000_000_009n;
const SHARD_REALM = { shard: 0n, realm: 0n };
const FILE_UPDATE = 19;
const CRYPTO_TRANSFER = 14;

function rowsOf(tx: Uint8Array, rec: Uint8Array) {
  return recordItemRows('test.rcd', [recordItem('test.rcd', Buffer.from(tx), Buffer.from(rec), 0)], SHARD_REALM);
}

describe('transaction rows of a record stream item', () => {
  it('a FileUpdate of the address book: the transaction, its transfers and its file_data row', () => {
    const contents = Buffer.from('new address book bytes');
    const rows = rowsOf(
      transaction(
        body(FILE_UPDATE, [
          [1, 'bytes', id(102)],
          [4, 'bytes', contents],
        ]),
      ),
      record(22),
    );
    assert.deepEqual(rows.transaction, [
      {
        consensus_timestamp: CONSENSUS,
        type: FILE_UPDATE,
        result: 22,
        payer_account_id: 1001n,
        valid_start_ns: 1_700_000_000_000_000_005n,
        valid_duration_seconds: 120n,
        node_account_id: 3n,
        entity_id: 102n,
        initial_balance: 0n,
        max_fee: 200_000_000n,
        charged_tx_fee: 84_000n,
        memo: Buffer.from('a memo'),
        transaction_hash: Buffer.alloc(48, 7),
        scheduled: false,
        nonce: 0,
        parent_consensus_timestamp: null,
        index: 0,
        nft_transfer: null,
      },
    ]);
    assert.deepEqual(rows.cryptoTransfer, [
      { consensus_timestamp: CONSENSUS, entity_id: 1001n, amount: -84_000n, payer_account_id: 1001n, is_approval: false },
      { consensus_timestamp: CONSENSUS, entity_id: 3n, amount: 4_000n, payer_account_id: 1001n, is_approval: false },
      // the record's flag is not taken: only a CryptoTransfer's body gives one (as in the importer)
      { consensus_timestamp: CONSENSUS, entity_id: 98n, amount: 80_000n, payer_account_id: 1001n, is_approval: false },
    ]);
    assert.deepEqual(rows.fileData, [
      { consensus_timestamp: CONSENSUS, entity_id: 102n, file_data: contents, transaction_type: FILE_UPDATE },
    ]);
  });

  it('file_data only for files 0.0.101, 0.0.102, 0.0.111, 0.0.112, and only when the transaction succeeded', () => {
    const update = (file: number) =>
      transaction(
        body(FILE_UPDATE, [
          [1, 'bytes', id(file)],
          [4, 'bytes', Buffer.from('x')],
        ]),
      );
    for (const file of [101, 102, 111, 112]) assert.equal(rowsOf(update(file), record(22)).fileData.length, 1, `0.0.${file}`);
    assert.deepEqual(rowsOf(update(150), record(22)).fileData, []);
    const failed = rowsOf(update(102), record(7));
    assert.deepEqual(failed.fileData, []);
    assert.equal(failed.transaction[0]?.result, 7);
    assert.equal(failed.cryptoTransfer.length, 3, 'the fees are charged all the same');
  });

  it('token transfers, staking rewards, a created entity from the receipt, a child transaction', () => {
    const rec = message([
      [
        1,
        'bytes',
        [
          [1, 'varint', 22],
          [2, 'bytes', id(5005)],
        ],
      ],
      [3, 'bytes', timestamp(1_700_000_001, 9)],
      [4, 'bytes', [[4, 'varint', 2]]],
      [
        11,
        'bytes',
        [
          [1, 'bytes', id(7007)],
          [2, 'bytes', accountAmount(1001, -5n)],
          [2, 'bytes', accountAmount(2002, 5n)],
        ],
      ],
      [15, 'bytes', timestamp(1_700_000_001, 8)],
      [18, 'bytes', accountAmount(800, -10n)],
      [18, 'bytes', accountAmount(1001, 10n)],
    ]);
    const created = rowsOf(transaction(body(11, [[2, 'varint', 12]], 2)), rec);
    const [row] = created.transaction;
    assert.equal(row?.type, 11);
    assert.equal(row?.entity_id, 5005n, 'CryptoCreate: the account the receipt names');
    assert.equal(row?.initial_balance, 12n);
    assert.equal(row?.nonce, 2);
    assert.equal(row?.parent_consensus_timestamp, CONSENSUS - 1n);
    assert.deepEqual(created.tokenTransfer, [
      { consensus_timestamp: CONSENSUS, token_id: 7007n, account_id: 1001n, amount: -5n, payer_account_id: 1001n, is_approval: false },
      { consensus_timestamp: CONSENSUS, token_id: 7007n, account_id: 2002n, amount: 5n, payer_account_id: 1001n, is_approval: false },
    ]);
    assert.deepEqual(created.stakingRewardTransfer, [
      { consensus_timestamp: CONSENSUS, account_id: 800n, amount: -10n, payer_account_id: 1001n },
      { consensus_timestamp: CONSENSUS, account_id: 1001n, amount: 10n, payer_account_id: 1001n },
    ]);
    assert.deepEqual(created.cryptoTransfer, []);
  });

  it("NFT transfers: the importer's nft_transfer JSON, without a sender for a mint or a receiver for a burn", () => {
    const nft = (sender: number | null, receiver: number | null, serial: number, approval = false): Field[] => [
      ...(sender === null ? [] : ([[1, 'bytes', id(sender)]] as Field[])),
      ...(receiver === null ? [] : ([[2, 'bytes', id(receiver)]] as Field[])),
      [3, 'varint', serial],
      ...(approval ? ([[4, 'varint', 1]] as Field[]) : []),
    ];
    const rec = record(22, [
      [
        11,
        'bytes',
        [
          [1, 'bytes', id(7007)],
          [3, 'bytes', nft(null, 1001, 1)],
          [3, 'bytes', nft(1001, 2002, 2, true)],
          [3, 'bytes', nft(2002, 0, 3, true)],
        ],
      ],
    ]);
    // the body asks for serial 2 as an approved transfer; the record's flags are not taken
    const asked = body(CRYPTO_TRANSFER, [
      [
        2,
        'bytes',
        [
          [1, 'bytes', id(7007)],
          [3, 'bytes', nft(1001, 2002, 2, true)],
        ],
      ],
    ]);
    const rows = rowsOf(transaction(asked), rec);
    assert.deepEqual(JSON.parse(String(rows.transaction[0]?.nft_transfer)), [
      { is_approval: false, receiver_account_id: 1001, sender_account_id: null, serial_number: 1, token_id: 7007 },
      { is_approval: true, receiver_account_id: 2002, sender_account_id: 1001, serial_number: 2, token_id: 7007 },
      { is_approval: false, receiver_account_id: null, sender_account_id: 2002, serial_number: 3, token_id: 7007 },
    ]);
    assert.deepEqual(rows.tokenTransfer, [], 'NFTs move in nft_transfer, not token_transfer');
    assert.equal(rowsOf(transaction(body(CRYPTO_TRANSFER, [])), record(22)).transaction[0]?.nft_transfer, null);
  });

  it("is_approval as the importer sets it: from a CryptoTransfer's body, for debits, never from the record", () => {
    const tokenList = (token: number, ...amounts: Field[][]): Field[] => [
      [1, 'bytes', id(token)],
      ...amounts.map((a) => [2, 'bytes', a] as Field),
    ];
    const asked = body(CRYPTO_TRANSFER, [
      [
        1,
        'bytes',
        [
          [1, 'bytes', accountAmount(1001, -50n, true)],
          [1, 'bytes', accountAmount(3, 4_000n, true)],
        ],
      ],
      [2, 'bytes', tokenList(7007, accountAmount(1001, -5n, true), accountAmount(2002, 5n, true))],
      [2, 'bytes', tokenList(8008, accountAmount(1001, -3n, true), accountAmount(2002, 3n))],
    ]);
    const rec = record(22, [
      [11, 'bytes', tokenList(7007, accountAmount(1001, -5n, true), accountAmount(2002, 5n, true))],
      // a debit the body does not list as such (a custom fee), of an account with an approved entry for the token
      [11, 'bytes', tokenList(8008, accountAmount(1001, -4n), accountAmount(2002, 3n), accountAmount(3003, 1n))],
    ]);
    const rows = rowsOf(transaction(asked), rec);
    assert.deepEqual(
      rows.cryptoTransfer.map((r) => [r.entity_id, r.is_approval]),
      [
        // the record's debit (the fee) is not the body's amount: false; credits are false whatever the flags
        [1001n, false],
        [3n, false],
        [98n, false],
      ],
    );
    assert.deepEqual(
      rows.tokenTransfer.map((r) => [r.token_id, r.account_id, r.is_approval]),
      [
        [7007n, 1001n, true],
        [7007n, 2002n, false],
        [8008n, 1001n, true],
        [8008n, 2002n, false],
        [8008n, 3003n, false],
      ],
    );
    const exact = body(CRYPTO_TRANSFER, [[1, 'bytes', [[1, 'bytes', accountAmount(1001, -84_000n, true)]]]]);
    assert.equal(rowsOf(transaction(exact), rec).cryptoTransfer[0]?.is_approval, true, "a debit the body lists takes the body's flag");
  });

  it('entity ids keep their shard and realm; an unknown body type is stored as -1', () => {
    const shardFile = message([
      [1, 'varint', 1],
      [2, 'varint', 2],
      [3, 'varint', 102],
    ]);
    const rows = recordItemRows(
      't.rcd',
      [recordItem('t.rcd', Buffer.from(transaction(body(FILE_UPDATE, [[1, 'bytes', shardFile]]))), Buffer.from(record(22)), 0)],
      { shard: 1n, realm: 2n },
    );
    assert.equal(rows.transaction[0]?.entity_id, encodeEntityId(1n, 2n, 102n));
    const unknown = rowsOf(transaction(body(999, [])), record(22));
    assert.equal(unknown.transaction[0]?.type, -1);
    assert.equal(rowsOf(transaction(body(CRYPTO_TRANSFER, [])), record(22)).transaction[0]?.entity_id, null);
  });
});

describe('transaction rows of a native block transaction', () => {
  it('reads the TransactionResult: status, fee, transfers, parent; the hash is SHA-384 of the signed transaction', () => {
    const signed = Buffer.from(message([[1, 'bytes', body(CRYPTO_TRANSFER, [])]]));
    const result = Buffer.from(
      message([
        [1, 'varint', 22],
        [3, 'bytes', timestamp(1_700_000_001, 1)],
        [5, 'varint', 9_000],
        [
          6,
          'bytes',
          [
            [1, 'bytes', accountAmount(1001, -9_000n)],
            [1, 'bytes', accountAmount(98, 9_000n)],
          ],
        ],
        [
          7,
          'bytes',
          [
            [1, 'bytes', id(7007)],
            [2, 'bytes', accountAmount(1001, 1n)],
          ],
        ],
        [9, 'bytes', accountAmount(800, -3n)],
      ]),
    );
    const rows = blockTransactionRows(
      'b.blk',
      [{ consensusTimestamp: CONSENSUS, signedTransactionBytes: signed, resultBytes: result }],
      SHARD_REALM,
    );
    const [row] = rows.transaction;
    assert.equal(row?.type, CRYPTO_TRANSFER);
    assert.equal(row?.result, 22);
    assert.equal(row?.charged_tx_fee, 9_000n);
    assert.equal(row?.parent_consensus_timestamp, 1_700_000_001_000_000_001n);
    assert.deepEqual(row?.transaction_hash, sha384(signed));
    assert.deepEqual(
      rows.cryptoTransfer.map((t) => [t.entity_id, t.amount]),
      [
        [1001n, -9_000n],
        [98n, 9_000n],
      ],
    );
    assert.equal(rows.tokenTransfer.length, 1);
    assert.equal(rows.stakingRewardTransfer.length, 1);
  });
});

describe("the stream's address book file contents", () => {
  it('are the latest create or update followed by the appends after it', () => {
    const row = (transaction_type: number, text: string) => ({ transaction_type, file_data: Buffer.from(text) });
    assert.equal(
      fileContents([row(19, 'old'), row(16, '-more'), row(19, 'new'), row(16, '-part2'), row(16, '-part3')]).toString(),
      'new-part2-part3',
    );
    assert.equal(fileContents([row(17, 'created'), row(16, '+')]).toString(), 'created+');
    assert.equal(fileContents([]).length, 0);
  });
});

describe('the progress line and the summary', () => {
  it('say files, records, the newest consensus time and the lag', () => {
    const progress = { files: 2, records: 3, newest: 1_657_701_971_304_284_004n, failures: 0 };
    assert.equal(progressLine(progress, 1_657_701_983_304), 'files 2, records 3, newest 2022-07-13T08:46:11.304284004Z, lag 12s');
    assert.equal(progressLine({ ...progress, newest: null }), 'files 2, records 3, newest -, lag -');
    assert.equal(ingestSummary({ ...progress, files: 1, records: 1 }), 'ingested 1 file, 1 record; newest 2022-07-13T08:46:11.304284004Z');
    assert.equal(
      ingestSummary({ files: 0, records: 0, newest: null, failures: 0 }),
      'ingested 0 files, 0 records; the database holds no file yet',
    );
  });
});
