import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readRecordFile } from '../../src/ingest/readers/recordFileReader.js';
import { readSignatureFile } from '../../src/ingest/readers/signatureFile.js';
import { StreamFileError } from '../../src/ingest/streamError.js';
import { nodeOfAccount } from '../../src/ingest/verification/addressBook.js';
import { balanceFileHash } from '../../src/ingest/verification/balanceFileHash.js';
import { reachConsensus } from '../../src/ingest/verification/consensus.js';
import { checkSidecar, sidecarNames } from '../../src/ingest/verification/sidecarHash.js';
import { streamFile, testAddressBook } from '../support/streamGroundTruth.js';

const refusal = (pattern: RegExp) => (e: unknown) => e instanceof StreamFileError && pattern.test(e.message);

const SIDECAR_FOLDERS = [
  'recordstreams/v6/record0.0.3',
  'recordstreams/v6/record0.0.6',
  'hip679/provider-node-id/0/0/record',
  'hip679/provider-auto/demo/0/1/record',
  'hip679/provider-auto-transition/recordstreams/record0.0.3',
];

describe('v6 sidecars', () => {
  it('match the hash their record file lists, in every copy', () => {
    for (const folder of SIDECAR_FOLDERS) {
      const file = readRecordFile('r.rcd.gz', streamFile(`${folder}/2022-07-13T08_46_11.304284003Z.rcd.gz`));
      const [name] = sidecarNames({ ...file, name: '2022-07-13T08_46_11.304284003Z.rcd.gz' });
      assert.equal(name, '2022-07-13T08_46_11.304284003Z_01.rcd.gz');
      const sidecar = streamFile(`${folder}/sidecar/${name}`);
      assert.equal(sidecar.length, 279);
      assert.equal(gunzipSync(sidecar).length, 435);
      checkSidecar(file, name!, sidecar);
    }
    const folder = 'hip679/provider-auto-transition/demo/0/0/record';
    const file = readRecordFile('r.rcd.gz', streamFile(`${folder}/2022-12-25T09_14_26.072307770Z.rcd.gz`));
    const sidecar = streamFile(`${folder}/sidecar/2022-12-25T09_14_26.072307770Z_01.rcd.gz`);
    assert.equal(sidecar.length, 107);
    checkSidecar(file, '2022-12-25T09_14_26.072307770Z_01.rcd.gz', sidecar);
  });

  it('refuses a sidecar whose hash differs, a corrupted one, an unlisted id and a bad name', () => {
    const folder = SIDECAR_FOLDERS[0]!;
    const file = readRecordFile('r.rcd.gz', streamFile(`${folder}/2022-07-13T08_46_11.304284003Z.rcd.gz`));
    const name = '2022-07-13T08_46_11.304284003Z_01.rcd.gz';
    const content = gunzipSync(streamFile(`${folder}/sidecar/${name}`));
    content[content.length - 1]! ^= 0x01;
    assert.throws(() => checkSidecar(file, name, gzipSync(content)), refusal(/sidecar hash [0-9a-f]{96} differs from 1ed54ea0/));
    const other = streamFile('hip679/provider-auto-transition/demo/0/0/record/sidecar/2022-12-25T09_14_26.072307770Z_01.rcd.gz');
    assert.throws(() => checkSidecar(file, name, other), refusal(/differs from/));
    assert.throws(() => checkSidecar(file, name, Buffer.from('corrupt')), refusal(/not a valid gzip file/));
    assert.throws(() => checkSidecar(file, name.replace('_01', '_02'), other), refusal(/lists no sidecar 2/));
    assert.throws(() => checkSidecar(file, 'sidecar.txt', other), refusal(/not a sidecar file name/));
  });
});

describe('account balance files', () => {
  const book = testAddressBook('testnet');
  const sets = [
    { path: 'accountBalances/v1/balance0.0.N/2019-08-30T18_15_00.016002001Z_Balances.csv', sig: '_sig' },
    { path: 'accountBalances/v1/balance0.0.N/2019-08-30T18_30_00.010147001Z_Balances.csv', sig: '_sig' },
    { path: 'accountBalances/mixed/balance0.0.N/2021-03-10T22_12_56.075092Z_Balances.pb.gz', sig: '' },
    { path: 'accountBalances/mixed/balance0.0.N/2021-03-10T22_27_56.236886Z_Balances.pb.gz', sig: '' },
  ];
  const sigName = (path: string) => (path.endsWith('.pb.gz') ? path.replace(/\.pb\.gz$/, '.pb_sig.gz') : `${path}_sig`);

  for (const set of sets) {
    it(`${set.path}: its hash is signed by all 4 nodes of the testnet book`, () => {
      const signatures = ['0.0.3', '0.0.4', '0.0.5', '0.0.6'].map((account) => {
        const path = set.path.replace('0.0.N', account);
        const signature = readSignatureFile(sigName(path), streamFile(sigName(path)));
        assert.deepEqual(signature.fileHash, balanceFileHash(path, streamFile(path)), path);
        return { nodeId: nodeOfAccount(book, account)!.nodeId, signature };
      });
      assert.deepEqual(reachConsensus(set.path, signatures, book).signers, [0n, 1n, 2n, 3n]);
    });
  }

  it('hashes a .pb.gz gunzipped and refuses bytes appended to it', () => {
    const path = 'accountBalances/proto/2021-03-08T20_15_00Z_Balances.pb.gz';
    const bytes = streamFile(path);
    assert.equal(balanceFileHash(path, bytes).length, 48);
    assert.throws(() => balanceFileHash(path, Buffer.concat([bytes, Buffer.from([0, 1, 2, 3])])), refusal(/unexpected bytes/));
  });
});
