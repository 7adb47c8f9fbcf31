/**
 * The synthetic signed record stream: `files` consecutive v6 record files of `recordsPerFile`
 * generated transactions each, one every 2 seconds as mainnet closes them, chained by their running
 * hashes and with consecutive block numbers, copied into every node's folder of a bucket layout with
 * each node's `.rcd_sig`, signed with RSA keys generated for the run; and the address book
 * (`addressbook.bin`, a NodeAddressBook) that holds those keys, for the ingester to verify with.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nanosToFileTime } from '../../src/ingest/streamFileName.js';
import { Rng } from '../generate/random.js';
import { bytes, int, message, string } from './protoWriter.js';
import { type HapiVersion, writeRecordFileV6, writeSignatureFileV6 } from './recordFileV6.js';
import { TransactionGenerator } from './transactions.js';

export interface StreamOptions {
  out: string;
  nodes: number;
  files: number;
  recordsPerFile: number;
  seed?: number;
  /** consensus time of the first file, ns since the epoch (default 2026-01-01T00:00:00Z) */
  startNanos?: bigint;
  /** time from one file's start to the next's (default 2 s); the records of a file stay within its first 2 s */
  fileIntervalNs?: bigint;
  firstBlock?: bigint;
  /** RSA modulus of the node keys (the network's are 3072 bits) */
  keyBits?: number;
  /** `account`: recordstreams/record0.0.N/ (before HIP-679); `node`: demo/0/<nodeId>/record/ */
  layout?: 'account' | 'node';
  /** create the topics, the account pool and a few tokens first, then move tokens too (ledgerSetup.ts) */
  ledger?: boolean;
}

export interface StreamSummary {
  files: number;
  records: number;
  nodes: number;
  /** the folder of each node's copies, relative to `out`, by node id */
  nodeFolders: string[];
  /** relative to `out` */
  addressBook: string;
  /** the previous hash of the first file (not all zeros, so that the chain is checked from the start) */
  firstPrevHash: string;
  /** the hash (end running hash) of the last file */
  lastHash: string;
  firstBlock: bigint;
  names: string[];
}

const HAPI_VERSION: HapiVersion = { major: 0, minor: 56, patch: 0 };
const FILE_INTERVAL_NS = 2_000_000_000n;
const DEFAULT_START = 1767225600000000000n;
const FIRST_NODE_ACCOUNT = 3n;

interface NodeKey {
  nodeId: bigint;
  account: bigint;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function nodeFolder(layout: 'account' | 'node', node: { nodeId: bigint; account: bigint }): string {
  return layout === 'account' ? `recordstreams/record0.0.${node.account}` : `demo/0/${node.nodeId}/record`;
}

/** A NodeAddressBook with each node's id, account (also as the memo old books used) and RSA key. */
export function addressBookBytes(nodes: { nodeId: bigint; account: bigint; publicKey: KeyObject }[]): Buffer {
  return Buffer.concat(
    nodes.map((node) =>
      message(
        1,
        bytes(3, Buffer.from(`0.0.${node.account}`)),
        string(4, node.publicKey.export({ format: 'der', type: 'spki' }).toString('hex')),
        ...(node.nodeId === 0n ? [] : [int(5, node.nodeId)]),
        message(6, int(3, node.account)),
      ),
    ),
  );
}

export async function writeStream(options: StreamOptions): Promise<StreamSummary> {
  const { out, nodes, files, recordsPerFile } = options;
  const layout = options.layout ?? 'account';
  const seed = options.seed ?? 1;
  const keys: NodeKey[] = [];
  for (let i = 0; i < nodes; i++) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: options.keyBits ?? 3072, publicExponent: 0x10001 });
    keys.push({ nodeId: BigInt(i), account: FIRST_NODE_ACCOUNT + BigInt(i), privateKey, publicKey });
  }
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'addressbook.bin'), addressBookBytes(keys));
  const folders = keys.map((k) => nodeFolder(layout, k));
  for (const folder of folders) await mkdir(join(out, folder), { recursive: true });

  const rng = new Rng(seed, 11);
  let prevHash: Buffer = Buffer.alloc(48);
  for (let i = 0; i < 48; i += 4) prevHash.writeUInt32BE(rng.uint32(), i);
  const firstPrevHash = prevHash.toString('hex');
  const generator = new TransactionGenerator(
    seed,
    keys.map((k) => k.account),
    { ledger: options.ledger === true },
  );
  const start = options.startNanos ?? DEFAULT_START;
  const firstBlock = options.firstBlock ?? 1n;
  const step = FILE_INTERVAL_NS / BigInt(Math.max(1, recordsPerFile));
  const names: string[] = [];
  for (let f = 0; f < files; f++) {
    const fileStart = start + BigInt(f) * (options.fileIntervalNs ?? FILE_INTERVAL_NS);
    // a few nanoseconds past the interval's start, as consensus times fall
    const first = fileStart + BigInt(rng.between(1, 999));
    const items = Array.from({ length: recordsPerFile }, (_, r) => generator.next(first + BigInt(r) * step));
    const written = writeRecordFileV6(HAPI_VERSION, firstBlock + BigInt(f), prevHash, items);
    const stem = nanosToFileTime(recordsPerFile > 0 ? first : fileStart);
    names.push(`${stem}.rcd.gz`);
    for (const [n, key] of keys.entries()) {
      const folder = join(out, folders[n]!);
      await writeFile(join(folder, `${stem}.rcd.gz`), written.gzipped);
      await writeFile(join(folder, `${stem}.rcd_sig`), writeSignatureFileV6(written.fileHash, written.metadataHash, key.privateKey));
    }
    prevHash = written.endRunningHash;
  }
  return {
    files,
    records: files * recordsPerFile,
    nodes,
    nodeFolders: folders,
    addressBook: 'addressbook.bin',
    firstPrevHash,
    lastHash: prevHash.toString('hex'),
    firstBlock,
    names,
  };
}
