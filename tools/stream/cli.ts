/** `stream OUT`: writes the synthetic signed record stream and prints what it wrote. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../../src/userError.js';
import { writeStream } from './writeStream.js';

export interface StreamCommandOptions {
  nodes: number;
  files: number;
  recordsPerFile: number;
  seed: number;
  start: string;
  firstBlock: number;
  keyBits: number;
  layout: 'account' | 'node';
  ledger?: boolean;
}

export async function streamCommand(out: string, options: StreamCommandOptions): Promise<number> {
  const millis = Date.parse(options.start);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(options.start) || Number.isNaN(millis))
    throw new UserError(`--start ${options.start}: not an ISO 8601 time`);
  if (options.keyBits < 2048) throw new UserError(`--key-bits ${options.keyBits}: at least 2048`);
  const existing = await readdir(out).catch(() => []);
  if (existing.length > 0) throw new UserError(`${out} is not empty: give a new or empty folder`);
  const begun = process.hrtime.bigint();
  const summary = await writeStream({
    out,
    nodes: options.nodes,
    files: options.files,
    recordsPerFile: options.recordsPerFile,
    seed: options.seed,
    startNanos: BigInt(millis) * 1_000_000n,
    firstBlock: BigInt(options.firstBlock),
    keyBits: options.keyBits,
    layout: options.layout,
    ledger: options.ledger === true,
  });
  const seconds = Number(process.hrtime.bigint() - begun) / 1e9;
  process.stdout.write(
    `${summary.files} record files (${summary.records} transactions) × ${summary.nodes} nodes in ${out} (${seconds.toFixed(1)} s)\n` +
      `  node folders   ${summary.nodeFolders.join(', ')}\n` +
      `  address book   ${join(out, summary.addressBook)}\n` +
      `  first file     ${summary.names[0] ?? '-'} (block ${summary.firstBlock}, previous hash ${summary.firstPrevHash})\n` +
      `  last hash      ${summary.lastHash}\n`,
  );
  return 0;
}
