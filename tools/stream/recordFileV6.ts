/**
 * A v6 record file and its node signature files, written as the network writes them:
 * `int 6` + a `RecordStreamFile` protobuf (gzipped as `.rcd.gz`), and per node byte 6 + a
 * `SignatureFile` with SHA384withRSA signatures of the file hash (SHA-384 of the gunzipped bytes)
 * and of the metadata hash (SHA-384 of int 6, the HAPI version, the start and end running hashes
 * and the block number). The hashes are computed here from what is written, independently of the
 * service's readers, so that the tests check one against the other.
 */
import { createHash, type KeyObject, sign } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { bytes, int, message } from './protoWriter.js';
import type { GeneratedItem } from './transactions.js';

/** what a file holds of each item: its serialized Transaction and TransactionRecord */
export type RecordStreamItem = Pick<GeneratedItem, 'transaction' | 'record'>;

const SHA_384 = 1;
const HASH_LENGTH = 48;
const SHA_384_WITH_RSA = 1;

export interface HapiVersion {
  major: number;
  minor: number;
  patch: number;
}

export interface WrittenRecordFile {
  /** the gzipped file, as a bucket holds it */
  gzipped: Buffer;
  fileHash: Buffer;
  metadataHash: Buffer;
  startRunningHash: Buffer;
  endRunningHash: Buffer;
}

function sha384(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha384');
  for (const p of parts) h.update(p);
  return h.digest();
}

function hashObject(field: number, hash: Buffer): Buffer {
  return message(field, int(1, SHA_384), int(2, HASH_LENGTH), bytes(3, hash));
}

/** Folds the items into the running hash: SHA-384 of the previous running hash and of each item's two serialized messages. */
export function runningHash(start: Buffer, items: RecordStreamItem[]): Buffer {
  let hash = start;
  for (const item of items) hash = sha384(hash, sha384(item.transaction, item.record));
  return hash;
}

export function writeRecordFileV6(
  version: HapiVersion,
  blockNumber: bigint,
  startRunningHash: Buffer,
  items: RecordStreamItem[],
): WrittenRecordFile {
  const endRunningHash = runningHash(startRunningHash, items);
  const body = Buffer.concat([
    message(1, int(1, version.major), int(2, version.minor), int(3, version.patch)),
    hashObject(2, startRunningHash),
    ...items.map((item) => message(3, bytes(1, item.transaction), bytes(2, item.record))),
    hashObject(4, endRunningHash),
    int(5, blockNumber),
  ]);
  const head = Buffer.alloc(4);
  head.writeInt32BE(6);
  const file = Buffer.concat([head, body]);
  const metadataHead = Buffer.alloc(16);
  metadataHead.writeInt32BE(6, 0);
  metadataHead.writeInt32BE(version.major, 4);
  metadataHead.writeInt32BE(version.minor, 8);
  metadataHead.writeInt32BE(version.patch, 12);
  const block = Buffer.alloc(8);
  block.writeBigInt64BE(blockNumber);
  return {
    gzipped: gzipSync(file),
    fileHash: sha384(file),
    metadataHash: sha384(metadataHead, startRunningHash, endRunningHash, block),
    startRunningHash,
    endRunningHash,
  };
}

function signatureObject(field: number, hash: Buffer, privateKey: KeyObject): Buffer {
  const signature = sign('sha384', hash, privateKey);
  return message(
    field,
    int(1, SHA_384_WITH_RSA),
    int(2, signature.length),
    // the network's checksum of a signature object
    int(3, 101 - signature.length),
    bytes(4, signature),
    hashObject(5, hash),
  );
}

/** A node's `.rcd_sig` (v6) over the file and metadata hashes. */
export function writeSignatureFileV6(fileHash: Buffer, metadataHash: Buffer, privateKey: KeyObject): Buffer {
  return Buffer.concat([Buffer.from([6]), signatureObject(1, fileHash, privateKey), signatureObject(2, metadataHash, privateKey)]);
}
