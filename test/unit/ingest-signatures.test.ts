import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { parseAddressBook } from '../../src/ingest/verification/addressBook.js';
import { bundledAddressBook, bundledAddressBookName } from '../../src/ingest/verification/bundledAddressBooks.js';
import { consensusThreshold } from '../../src/ingest/verification/consensus.js';
import { verifyHashSignature } from '../../src/ingest/verification/rsaSignature.js';
import { streamFile, testAddressBook } from '../support/streamGroundTruth.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);

describe('signature file readers', () => {
  it('v2 (0x04): the file hash and a 384-byte signature', () => {
    const sig = readSignatureFile('a.rcd_sig', streamFile('signature/v2/2019-08-30T18_10_00.419072Z.rcd_sig'));
    assert.equal(sig.version, 2);
    assert.equal(
      sig.fileHash.toString('hex'),
      '591558e059bd1629ee386c4e35a6875b4c67a096718f5d225772a651042715189414df7db5588495efb2a85dc4a0ffda',
    );
    assert.equal(sig.fileSignature.length, 384);
    assert.equal(sig.metadataHash, null);
  });

  it('v5: file and metadata hashes', () => {
    const sig = readSignatureFile('a.rcd_sig', streamFile('signature/v5/2021-01-11T22_16_11.299356001Z.rcd_sig'));
    assert.equal(sig.version, 5);
    assert.equal(
      sig.fileHash.toString('hex'),
      '2fe38056afaa7b289c9cbfa55522f95c8072f0949819a4d519af400c6e7db3e64e5077136801d1dcac57d02a28739268',
    );
    assert.equal(
      sig.metadataHash?.toString('hex'),
      'cb24a1f3e2330a5a7393a43f4d02b5f03df78ea54d37a899999a9de69f50376d6d52cd8448219e8a6df600d21fa1aa62',
    );
    assert.equal(sig.fileSignature.length, 384);
    assert.equal(sig.metadataSignature?.length, 384);
  });

  it('v6: file and metadata hashes of both samples', () => {
    const samples = [
      [
        '2022-06-16T10_18_37.496046001Z.rcd_sig',
        '3e546619bd9c59fe0ee03be25ff2371718ff206f31323868207bb621bc85212669eb66b8a1556d4e686c8fbcd14f9e97',
        '01a43036a6ce80082680fa64b4702aecb659b8ddd02a06201c6c83d2b71def7b2ee1b5ac09bb7eb9b2f04dad5547e8e9',
      ],
      [
        '2022-06-16T10_18_40.720801003Z.rcd_sig',
        'b5947d59a5661f591c0950e8dd0c6a4d42f49dcf7454bc05c911fef67aedead41fb00f01ac32b1de9ac2b3130fb14346',
        'c8766bf8449e2d4598a4b7cc41c7a54f16dc869bd9cf81af2536ba1a8ec8c86d1e33134995d45f67ce26a79249d96666',
      ],
    ];
    for (const [name, fileHash, metadataHash] of samples) {
      const sig = readSignatureFile(name!, streamFile(`signature/v6/${name}`));
      assert.equal(sig.version, 6);
      assert.equal(sig.fileHash.toString('hex'), fileHash);
      assert.equal(sig.metadataHash?.toString('hex'), metadataHash);
    }
  });

  it('refuses truncated, garbage-appended and unknown signature files', () => {
    const v2 = streamFile('signature/v2/2019-08-30T18_10_00.419072Z.rcd_sig');
    const v5 = streamFile('signature/v5/2021-01-11T22_16_11.299356001Z.rcd_sig');
    const v6 = streamFile('signature/v6/2022-06-16T10_18_37.496046001Z.rcd_sig');
    for (const bytes of [v2, v5]) {
      assert.throws(() => readSignatureFile('s', bytes.subarray(0, bytes.length - 1)), refusal(/truncated/));
      assert.throws(() => readSignatureFile('s', Buffer.concat([bytes, Buffer.from('corrupt')])), refusal(/unexpected bytes/));
    }
    assert.throws(() => readSignatureFile('s', v6.subarray(0, 60)), refusal(/malformed SignatureFile|no file hash/));
    assert.throws(() => readSignatureFile('s', Buffer.from([7, 1, 2])), refusal(/^s: unknown signature file version 7$/));
    assert.throws(() => readSignatureFile('s', Buffer.alloc(0)), refusal(/empty signature file/));
  });
});

describe('address books', () => {
  it('reads the test books: 4 nodes with RSA keys, node ids 0-3 for 0.0.3-0.0.6', () => {
    for (const name of ['test-v1', 'testnet', 'test-v6-4n.bin', 'test-v6-sidecar-4n.bin']) {
      const book = testAddressBook(name);
      assert.deepEqual([...book.nodes.keys()], [0n, 1n, 2n, 3n], name);
      assert.deepEqual(
        [...book.nodes.values()].map((n) => n.accountId),
        ['0.0.3', '0.0.4', '0.0.5', '0.0.6'],
        name,
      );
    }
  });

  it('derives node ids of the 2019 mainnet book from the accounts, and reads the dated books', () => {
    const mainnet = bundledAddressBook('mainnet', 0n);
    assert.equal(mainnet.nodes.size, 13);
    for (const node of mainnet.nodes.values()) assert.equal(`0.0.${node.nodeId + 3n}`, node.accountId);
    const later = bundledAddressBook('mainnet', 1769623200803405897n);
    assert.equal(later.nodes.size, 32);
    const ids = [...later.nodes.keys()].map(Number);
    assert.deepEqual(
      ids,
      Array.from({ length: 36 }, (_, i) => i).filter((i) => ![2, 8, 13, 23].includes(i)),
    );
    const counts = ['testnet', 'previewnet', 'demo'].map((n) => bundledAddressBook(n, 0n).nodes.size);
    assert.deepEqual(counts, [7, 7, 4]);
    assert.equal(bundledAddressBook('testnet', 1767117600294393897n).nodes.size, 7);
  });

  it('picks the latest dated book at or before the start time', () => {
    assert.equal(bundledAddressBookName('mainnet', 1769623200803405896n), 'mainnet');
    assert.equal(bundledAddressBookName('mainnet', 1769623200803405897n), 'mainnet-1769623200803405897');
    assert.equal(bundledAddressBookName('testnet', 1800000000000000000n), 'testnet-1767117600294393897');
    assert.throws(() => bundledAddressBookName('nonet', 0n), /no bundled address book for network 'nonet' \(bundled: demo, mainnet/);
  });

  it('refuses a malformed book and one without keys', () => {
    assert.throws(() => parseAddressBook(Buffer.from([0x0a, 0x05, 0x01]), 'bad'), /address book bad: malformed NodeAddressBook/);
    assert.throws(() => parseAddressBook(Buffer.alloc(0), 'empty'), /address book empty: no node with an RSA key/);
    assert.throws(
      () => parseAddressBook(Buffer.from([0x0a, 0x04, 0x22, 0x02, 0x61, 0x62]), 'key'),
      /address book key: node 0 has an unreadable RSA_PubKey/,
    );
  });
});

describe('RSA signatures and the threshold', () => {
  it('verifies SHA384withRSA over the hash with the node key, and only that', () => {
    const book = testAddressBook('testnet');
    const sig = readSignatureFile('s', streamFile('recordstreams/v2/record0.0.4/2019-08-30T18_10_00.419072Z.rcd_sig'));
    assert.ok(verifyHashSignature(sig.fileHash, sig.fileSignature, book.nodes.get(1n)!.publicKey));
    assert.ok(!verifyHashSignature(sig.fileHash, sig.fileSignature, book.nodes.get(0n)!.publicKey));
    assert.ok(!verifyHashSignature(sig.fileHash, sig.fileSignature.subarray(1), book.nodes.get(1n)!.publicKey));
  });

  it('needs ceil(total / 3) of the stake', () => {
    assert.deepEqual([1n, 2n, 3n, 4n, 6n, 7n, 4000n].map(consensusThreshold), [1n, 1n, 1n, 2n, 2n, 3n, 1334n]);
  });
});
