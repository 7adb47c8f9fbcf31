/**
 * A signed record stream of scripted transactions (tokenTransactions.ts): the given items in v6
 * record files of `perFile` items each, chained by their running hashes, with each node's signature
 * file and the address book of the node keys, laid out as writeStream lays out the generated stream.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nanosToFileTime } from '../../src/ingest/streamFileName.js';
import { type HapiVersion, writeRecordFileV6, writeSignatureFileV6 } from './recordFileV6.js';
import type { ScriptedItem } from './tokenTransactions.js';
import type { GeneratedItem } from './transactions.js';
import { addressBookBytes, nodeFolder } from './writeStream.js';

const HAPI_VERSION: HapiVersion = { major: 0, minor: 56, patch: 0 };

export interface ScriptedStreamOptions {
  out: string;
  items: ScriptedItem[];
  perFile: number;
  nodes?: number;
  keyBits?: number;
}

/** Writes the stream; returns the address book's path and the files' names. */
export async function writeScriptedStream(options: ScriptedStreamOptions): Promise<{ addressBook: string; names: string[] }> {
  const { out, items, perFile } = options;
  const keys = Array.from({ length: options.nodes ?? 1 }, (_, i) => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: options.keyBits ?? 2048, publicExponent: 0x10001 });
    return { nodeId: BigInt(i), account: 3n + BigInt(i), privateKey, publicKey };
  });
  await mkdir(out, { recursive: true });
  const addressBook = join(out, 'addressbook.bin');
  await writeFile(addressBook, addressBookBytes(keys));
  const names: string[] = [];
  let prevHash: Buffer = Buffer.alloc(48, 7);
  for (let first = 0, block = 1n; first < items.length; first += perFile, block++) {
    // the file writer reads only each item's two messages
    const fileItems = items.slice(first, first + perFile) as unknown as GeneratedItem[];
    const written = writeRecordFileV6(HAPI_VERSION, block, prevHash, fileItems);
    const name = `${nanosToFileTime(fileItems[0]!.consensusTimestamp)}.rcd.gz`;
    names.push(name);
    for (const key of keys) {
      const folder = join(out, nodeFolder('account', key));
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, name), written.gzipped);
      await writeFile(
        join(folder, name.replace(/\.gz$/, '_sig')),
        writeSignatureFileV6(written.fileHash, written.metadataHash, key.privateKey),
      );
    }
    prevHash = written.endRunningHash;
  }
  return { addressBook, names };
}
