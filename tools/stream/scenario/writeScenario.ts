/**
 * Writes a played scenario as a signed record stream (v6 files of the ledger's record files, each
 * node's copy and signature, the address book), as `writeStream` lays out its own, and returns the
 * `record_file` rows the importer writes for those files and each item's position in its file.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nanosToFileTime } from '../../../src/ingest/streamFileName.js';
import type { ColumnValues } from '../../../src/ledgerSetup/insert.js';
import { type HapiVersion, writeRecordFileV6, writeSignatureFileV6 } from '../recordFileV6.js';
import { addressBookBytes, nodeFolder } from '../writeStream.js';
import type { EncodedItem } from './hapi.js';

const HAPI_VERSION: HapiVersion = { major: 0, minor: 56, patch: 0 };

export interface WrittenScenario {
  recordFiles: ColumnValues[];
  /** each item's index in its file, by consensus timestamp */
  indexes: Map<bigint, number>;
  addressBook: string;
}

export async function writeScenarioStream(
  out: string,
  files: readonly EncodedItem[][],
  options: { nodes: number; keyBits: number; firstBlock: bigint },
): Promise<WrittenScenario> {
  const keys = Array.from({ length: options.nodes }, (_, i) => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: options.keyBits, publicExponent: 0x10001 });
    return { nodeId: BigInt(i), account: 3n + BigInt(i), privateKey, publicKey };
  });
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'addressbook.bin'), addressBookBytes(keys));
  const folders = keys.map((k) => join(out, nodeFolder('account', k)));
  for (const folder of folders) await mkdir(folder, { recursive: true });

  const recordFiles: ColumnValues[] = [];
  const indexes = new Map<bigint, number>();
  let prevHash: Buffer = Buffer.alloc(48, 7);
  for (const [f, items] of files.entries()) {
    const block = options.firstBlock + BigInt(f);
    const written = writeRecordFileV6(HAPI_VERSION, block, prevHash, items);
    const first = items[0]!.consensusTimestamp;
    const last = items[items.length - 1]!.consensusTimestamp;
    const name = `${nanosToFileTime(first)}.rcd.gz`;
    for (const [n, key] of keys.entries()) {
      await writeFile(join(folders[n]!, name), written.gzipped);
      await writeFile(
        join(folders[n]!, name.replace(/\.gz$/, '_sig')),
        writeSignatureFileV6(written.fileHash, written.metadataHash, key.privateKey),
      );
    }
    for (const [i, item] of items.entries()) indexes.set(item.consensusTimestamp, i);
    recordFiles.push({
      bytes: null,
      consensus_end: last,
      consensus_start: first,
      count: BigInt(items.length),
      digest_algorithm: 0,
      file_hash: written.fileHash.toString('hex'),
      gas_used: 0n,
      hapi_version_major: HAPI_VERSION.major,
      hapi_version_minor: HAPI_VERSION.minor,
      hapi_version_patch: HAPI_VERSION.patch,
      hash: written.endRunningHash.toString('hex'),
      index: block,
      load_end: null,
      load_start: null,
      logs_bloom: Buffer.alloc(0),
      metadata_hash: written.metadataHash.toString('hex'),
      name,
      // the first signer whose copy is accepted
      node_id: 0n,
      prev_hash: prevHash.toString('hex'),
      sidecar_count: 0,
      size: written.gzipped.length,
      software_version_major: null,
      software_version_minor: null,
      software_version_patch: null,
      version: 6,
      round_start: null,
      round_end: null,
    });
    prevHash = written.endRunningHash;
  }
  return { recordFiles, indexes, addressBook: join(out, 'addressbook.bin') };
}
