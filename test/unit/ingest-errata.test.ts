/**
 * Mainnet's errata: the folder the operator gives read as ../shared/streams/errata/mainnet is, the
 * 113 missing transactions read from it with their README counts and `errata = 'INSERT'` rows, taken
 * by time window; a folder that is missing, incomplete or malformed refused in one line; the errata
 * refused for a network other than mainnet, and the warning of mainnet without them; and the
 * spurious transfers of a failed 2019 CryptoTransfer marked `DELETE`.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import { configWith } from '../../src/config.js';
import { ErrataFolderError, readMainnetErrata } from '../../src/ingest/errata/mainnetErrataFiles.js';
import { missingTransactionRows, readMissingTransaction } from '../../src/ingest/errata/missingTransactions.js';
import { markSpuriousTransfers, SPURIOUS_TRANSFERS_BEFORE } from '../../src/ingest/errata/spuriousTransfers.js';
import { missingErrataWarning, resolveErrata } from '../../src/ingest/setup.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { recordItemRows } from '../../src/ingest/writers/transactionRows.js';
import { UserError } from '../../src/userError.js';
import { STREAMS_DIR } from '../support/streamGroundTruth.js';

const SHARED = join(STREAMS_DIR, 'errata', 'mainnet');
const SHARD_REALM = { shard: 0n, realm: 0n };

describe('the mainnet errata files', () => {
  const errata = readMainnetErrata(SHARED);

  it('hold 113 missing transactions: 112 CryptoTransfer and 1 ContractCall, 82 FAIL_INVALID and 31 INSUFFICIENT_PAYER_BALANCE', () => {
    const items = errata.missingTransactions;
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
    const items = errata.missingTransactions;
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

describe('the errata folder the operator gives', () => {
  const work = mkdtempSync(join(tmpdir(), 'lqs-errata-folder-'));
  after(() => rmSync(work, { recursive: true, force: true }));
  const bins = readdirSync(join(SHARED, 'missingtransactions')).filter((n) => n.endsWith('.bin'));

  /** A folder of the importer's layout with the real offsets and the first two .bin files, changed by `change`. */
  function folder(name: string, change: (dir: string) => void = () => {}): string {
    const dir = join(work, name);
    mkdirSync(join(dir, 'missingtransactions'), { recursive: true });
    copyFileSync(join(SHARED, 'balance-offsets.txt'), join(dir, 'balance-offsets.txt'));
    for (const n of bins.slice(0, 2)) copyFileSync(join(SHARED, 'missingtransactions', n), join(dir, 'missingtransactions', n));
    change(dir);
    return dir;
  }

  function refused(dir: string, problem: RegExp): void {
    assert.throws(
      () => readMainnetErrata(dir),
      (e) =>
        e instanceof ErrataFolderError &&
        !e.message.includes('\n') &&
        e.message.startsWith(`errata folder ${dir}: `) &&
        problem.test(e.message),
    );
  }

  it('reads the real folder: 6,949 offsets and 113 transactions in consensus order', () => {
    const errata = readMainnetErrata(SHARED);
    assert.equal(errata.balanceOffsets.size, 6_949);
    assert.equal(errata.missingTransactions.length, bins.length);
    const stamps = errata.missingTransactions.map((i) => i.consensusTimestamp);
    assert.deepEqual(
      stamps,
      [...stamps].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    const copy = readMainnetErrata(folder('copy'));
    assert.deepEqual(copy.balanceOffsets, errata.balanceOffsets);
    assert.deepEqual(
      copy.missingTransactions.map((i) => i.consensusTimestamp),
      stamps.slice(0, 2),
    );
  });

  it('refuses a missing folder, a file, a missing or unreadable offsets file, a malformed line, a missing missingtransactions/', () => {
    refused(join(work, 'none'), /the folder is missing/);
    refused(join(SHARED, 'balance-offsets.txt'), /not a folder$/);
    refused(
      folder('no-offsets', (d) => rmSync(join(d, 'balance-offsets.txt'))),
      /balance-offsets\.txt is missing \(the importer's errata\/mainnet layout/,
    );
    refused(
      folder('offsets-folder', (d) => {
        rmSync(join(d, 'balance-offsets.txt'));
        mkdirSync(join(d, 'balance-offsets.txt'));
      }),
      /balance-offsets\.txt cannot be read \(EISDIR\)$/,
    );
    refused(
      folder('bad-line', (d) => writeFileSync(join(d, 'balance-offsets.txt'), '1568415600193620000\n\n2019-09-14T00:00:00Z\n')),
      /balance-offsets\.txt line 3 is not a consensus timestamp in nanoseconds: "2019-09-14T00:00:00Z"$/,
    );
    refused(
      folder('no-missing', (d) => rmSync(join(d, 'missingtransactions'), { recursive: true })),
      /missingtransactions\/ is missing/,
    );
  });

  it('refuses a .bin file that does not parse, naming it', () => {
    refused(
      folder('bad-bin', (d) =>
        writeFileSync(join(d, 'missingtransactions', bins[1]!), readFileSync(join(SHARED, 'missingtransactions', bins[1]!)).subarray(0, 9)),
      ),
      new RegExp(`missingtransactions/${bins[1]!.replaceAll('.', '\\.')}: `),
    );
  });

  it("are mainnet's: refused with another network or none; mainnet without them warns once what is not applied", () => {
    const settings = configWith({}).ingest;
    assert.equal(resolveErrata({ ...settings, network: 'mainnet', errata: SHARED })?.missingTransactions.length, bins.length);
    assert.equal(resolveErrata({ ...settings, network: 'mainnet', errata: '' }), null);
    for (const network of ['testnet', '']) {
      assert.throws(
        () => resolveErrata({ ...settings, network, errata: SHARED }),
        (e) => e instanceof UserError && /errata .* are mainnet's: they need --network mainnet/.test(e.message),
      );
    }
    assert.throws(
      () => resolveErrata({ ...settings, network: 'mainnet', errata: join(work, 'none') }),
      (e) => e instanceof UserError && /^errata folder .*none: the folder is missing/.test(e.message),
    );
    const warning = missingErrataWarning({ ...settings, network: 'mainnet', errata: '' });
    assert.match(
      warning ?? '',
      /not applied \(the 113 missing transactions, .*balance-offsets\.txt\); give --errata DIR .*CryptoTransfers need no file/,
    );
    assert.ok(!warning!.includes('\n'));
    assert.equal(missingErrataWarning({ ...settings, network: 'mainnet', errata: SHARED }), null);
    assert.equal(missingErrataWarning({ ...settings, network: 'testnet', errata: '' }), null);
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
