/**
 * The mainnet errata shipped with the service (`src/ingest/errata/mainnet/`, the importer's
 * `errata/mainnet` resources byte for byte): the balance files whose time offset is −1 ns, and the
 * transactions the record streams miss. They apply to network `mainnet` only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';

export const MAINNET_ERRATA_DIR = join(PROJECT_ROOT, 'src', 'ingest', 'errata', 'mainnet');

let offsets: Set<bigint> | null = null;

/** The consensus timestamps of `balance-offsets.txt`, read once. */
export function balanceOffsetTimestamps(dir = MAINNET_ERRATA_DIR): Set<bigint> {
  if (dir === MAINNET_ERRATA_DIR && offsets) return offsets;
  const text = readFileSync(join(dir, 'balance-offsets.txt'), 'utf8');
  const set = new Set(
    text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .map((l) => BigInt(l.trim())),
  );
  if (dir === MAINNET_ERRATA_DIR) offsets = set;
  return set;
}

/** The `missingtransactions/*.bin` files, in name order: each an int32 length + TransactionRecord, int32 length + Transaction. */
export function missingTransactionFiles(dir = MAINNET_ERRATA_DIR): { name: string; bytes: Buffer }[] {
  const folder = join(dir, 'missingtransactions');
  return readdirSync(folder)
    .filter((n) => n.endsWith('.bin'))
    .sort()
    .map((name) => ({ name, bytes: readFileSync(join(folder, name)) }));
}
