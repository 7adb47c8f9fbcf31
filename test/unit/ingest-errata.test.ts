/**
 * Mainnet's errata: the bundled files are the real ones of ../shared/streams/errata/mainnet, the 113
 * missing transactions read from them with their README counts and `errata = 'INSERT'` rows, taken
 * by time window, and the spurious transfers of a failed 2019 CryptoTransfer marked `DELETE`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import { MAINNET_ERRATA_DIR } from '../../src/ingest/errata/mainnetErrataFiles.js';
import { missingTransactionRows, missingTransactions, readMissingTransaction } from '../../src/ingest/errata/missingTransactions.js';
import { markSpuriousTransfers, SPURIOUS_TRANSFERS_BEFORE } from '../../src/ingest/errata/spuriousTransfers.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { recordItemRows } from '../../src/ingest/writers/transactionRows.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

const SHARED = join(STREAMS_DIR, 'errata', 'mainnet');
const SHARD_REALM = { shard: 0n, realm: 0n };

describe('the mainnet errata files', () => {
  it('are bundled byte for byte', () => {
    for (const sub of ['', 'missingtransactions']) {
      const names = readdirSync(join(SHARED, sub)).filter((n) => n.includes('.'));
      assert.deepEqual(
        readdirSync(join(MAINNET_ERRATA_DIR, sub)).filter((n) => n.includes('.')),
        names,
      );
      for (const n of names) assert.ok(readFileSync(join(SHARED, sub, n)).equals(readFileSync(join(MAINNET_ERRATA_DIR, sub, n))), n);
    }
  });

  it('hold 113 missing transactions: 112 CryptoTransfer and 1 ContractCall, 82 FAIL_INVALID and 31 INSUFFICIENT_PAYER_BALANCE', () => {
    const items = missingTransactions(SHARED);
    assert.equal(items.length, 113);
    const rows = missingTransactionRows(null, items.at(-1)!.consensusTimestamp, new Set(), SHARD_REALM, items);
    const count = (values: unknown[]) =>
      Object.fromEntries([...new Set(values)].map((v) => [String(v), values.filter((x) => x === v).length]));
    assert.deepEqual(count(rows.transaction.map((t) => t.type)), { '14': 112, '7': 1 });
    assert.deepEqual(count(rows.transaction.map((t) => t.result)), { '23': 82, '10': 31 });
    assert.ok(rows.transaction.every((t) => t.errata === 'INSERT'));
    assert.ok(rows.cryptoTransfer.length > 0 && rows.cryptoTransfer.every((t) => t.errata === 'INSERT'));
    // every transaction's hbar transfers balance out
    const sums = new Map<bigint, bigint>();
    for (const t of rows.cryptoTransfer)
      sums.set(t.consensus_timestamp as bigint, (sums.get(t.consensus_timestamp as bigint) ?? 0n) + (t.amount as bigint));
    assert.equal(sums.size, 113);
    assert.ok([...sums.values()].every((s) => s === 0n));
    assert.equal(items[0]!.consensusTimestamp, 1568459910225708000n, '2019-09-14T11:18:30.225708Z');
  });

  it('are taken by time window, after the previous file and up to this one, unless the file has the transaction', () => {
    const items = missingTransactions(SHARED);
    const [a, b, c] = items.map((i) => i.consensusTimestamp);
    const stamps = (after: bigint | null, upTo: bigint, present: bigint[] = []) =>
      missingTransactionRows(after, upTo, new Set(present), SHARD_REALM, items).transaction.map((t) => t.consensus_timestamp);
    assert.deepEqual(stamps(null, a! - 1n), []);
    assert.deepEqual(stamps(null, b!), [a, b]);
    assert.deepEqual(stamps(a!, c!), [b, c]);
    assert.deepEqual(stamps(a!, c!, [b!]), [c]);
  });

  it('refuses an errata file with bytes after the transaction', () => {
    const name = readdirSync(join(SHARED, 'missingtransactions'))[0]!;
    const bytes = readFileSync(join(SHARED, 'missingtransactions', name));
    assert.equal(readMissingTransaction(name, bytes).consensusTimestamp, 1568459910225708000n);
    assert.throws(
      () => readMissingTransaction(name, Buffer.concat([bytes, Buffer.from([1])])),
      (e) => e instanceof StreamFileError && /unexpected bytes/.test(e.message),
    );
  });
});

type Field = [number, 'varint' | 'sint64' | 'bytes', bigint | number | Uint8Array | Field[]];
function message(fields: Field[]): Buffer {
  const w = protobuf.Writer.create();
  for (const [field, kind, value] of fields) {
    if (kind === 'varint') w.uint32(field << 3).int64(String(value) as unknown as number);
    else if (kind === 'sint64') w.uint32(field << 3).sint64(String(value) as unknown as number);
    else w.uint32((field << 3) | 2).bytes(Array.isArray(value) ? message(value as Field[]) : (value as Uint8Array));
  }
  return Buffer.from(w.finish());
}
const id = (num: number): Field[] => [[3, 'varint', num]];
const amount = (num: number, tinybar: bigint): Field => [
  1,
  'bytes',
  [
    [1, 'bytes', id(num)],
    [2, 'sint64', tinybar],
  ],
];

/** A CryptoTransfer of 500 tinybar from 0.0.1001 to 0.0.1002 at `ns`, whose record lists the fee and the body's transfers. */
function cryptoTransfer(ns: bigint, status: number) {
  const seconds = ns / 1_000_000_000n;
  const nanos = ns % 1_000_000_000n;
  const bodyBytes = message([
    [
      1,
      'bytes',
      [
        [1, 'bytes', [[1, 'varint', seconds - 5n]]],
        [2, 'bytes', id(1001)],
      ],
    ],
    [2, 'bytes', id(3)],
    [14, 'bytes', [[1, 'bytes', [amount(1001, -500n), amount(1002, 500n)]]]],
  ]);
  const recordBytes = message([
    [1, 'bytes', [[1, 'varint', status]]],
    [
      3,
      'bytes',
      [
        [1, 'varint', seconds],
        [2, 'varint', nanos],
      ],
    ],
    [10, 'bytes', [amount(1001, -84_000n), amount(3, 4_000n), amount(98, 80_000n), amount(1001, -500n), amount(1002, 500n)]],
  ]);
  const transactionBytes = message([[5, 'bytes', [[1, 'bytes', bodyBytes]]]]);
  return {
    consensusTimestamp: ns,
    transactionBytes,
    recordBytes,
    parentConsensusTimestamp: null,
    nonce: 0,
    scheduled: false,
    contractResult: null,
  };
}

describe('spurious transfers', () => {
  const IN_2019 = 1_570_000_000_000_000_000n;
  const marks = (ns: bigint, status: number) => {
    const rows = recordItemRows('t', [cryptoTransfer(ns, status)], SHARD_REALM);
    const marked = markSpuriousTransfers(rows);
    const applied = rows.decoded[0]!.outcome.transfers.map((t) => [t.accountId, t.amount]);
    return { marked, errata: rows.cryptoTransfer.map((r) => [r.entity_id, r.amount, r.errata]), applied };
  };

  it("marks a failed 2019 CryptoTransfer's transfers that its body asked for, not its fees", () => {
    assert.deepEqual(marks(IN_2019, 28), {
      marked: 2,
      errata: [
        [1001n, -84_000n, null],
        [3n, 4_000n, null],
        [98n, 80_000n, null],
        [1001n, -500n, 'DELETE'],
        [1002n, 500n, 'DELETE'],
      ],
      applied: [
        [1001n, -84_000n],
        [3n, 4_000n],
        [98n, 80_000n],
      ],
    });
  });

  it('leaves successful ones and those from 2020 on alone', () => {
    assert.equal(marks(IN_2019, 22).marked, 0);
    assert.equal(marks(IN_2019, 22).applied.length, 5);
    assert.equal(marks(SPURIOUS_TRANSFERS_BEFORE, 28).marked, 0);
    assert.equal(marks(SPURIOUS_TRANSFERS_BEFORE - 1n, 28).marked, 2);
  });
});
