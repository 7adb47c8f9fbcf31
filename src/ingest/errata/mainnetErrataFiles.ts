/**
 * Mainnet's errata files, read from the folder the operator gives (`--errata DIR`, `ingest.errata`),
 * laid out as the mirror node importer's `errata/mainnet` resources: `balance-offsets.txt` (the
 * balance files whose time offset is −1 ns, one consensus timestamp a line) and
 * `missingtransactions/*.bin` (the transactions the record streams miss). They are not shipped with
 * the service: the stream material is the operator's. The folder is read once, at start-up, and
 * every problem with it is an ErrataFolderError of one line, before any database is opened.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordItem } from '../recordFile.js';
import { readMissingTransaction } from './missingTransactions.js';

export interface MainnetErrata {
  /** the folder they were read from */
  dir: string;
  /** the consensus timestamps of `balance-offsets.txt` */
  balanceOffsets: ReadonlySet<bigint>;
  /** the transactions of `missingtransactions/*.bin`, in consensus order */
  missingTransactions: readonly RecordItem[];
}

export class ErrataFolderError extends Error {
  constructor(dir: string, problem: string) {
    super(`errata folder ${dir}: ${problem}`);
    this.name = 'ErrataFolderError';
  }
}

const OFFSETS = 'balance-offsets.txt';
const MISSING = 'missingtransactions';

function readable<T>(dir: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new ErrataFolderError(dir, `${what} is missing (the importer's errata/mainnet layout: ${OFFSETS}, ${MISSING}/*.bin)`);
    throw new ErrataFolderError(dir, `${what} cannot be read (${code ?? (e as Error).message})`);
  }
}

/** The timestamps of `balance-offsets.txt`: one integer of nanoseconds a line, blank lines left out. */
export function parseBalanceOffsets(dir: string, text: string): Set<bigint> {
  const set = new Set<bigint>();
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const value = line.trim();
    if (value === '') continue;
    if (!/^\d{1,19}$/.test(value)) {
      throw new ErrataFolderError(
        dir,
        `${OFFSETS} line ${i + 1} is not a consensus timestamp in nanoseconds: ${JSON.stringify(value.slice(0, 40))}`,
      );
    }
    set.add(BigInt(value));
  }
  return set;
}

/** Reads and checks the errata folder `dir`; throws an ErrataFolderError naming the first problem. */
export function readMainnetErrata(dir: string): MainnetErrata {
  const stat = readable(dir, 'the folder', () => statSync(dir));
  if (!stat.isDirectory()) throw new ErrataFolderError(dir, 'not a folder');
  const balanceOffsets = parseBalanceOffsets(
    dir,
    readable(dir, OFFSETS, () => readFileSync(join(dir, OFFSETS), 'utf8')),
  );
  const folder = join(dir, MISSING);
  const names = readable(dir, `${MISSING}/`, () => readdirSync(folder))
    .filter((n) => n.endsWith('.bin'))
    .sort();
  const missingTransactions = names
    .map((name) => {
      const bytes = readable(dir, `${MISSING}/${name}`, () => readFileSync(join(folder, name)));
      try {
        return readMissingTransaction(`${MISSING}/${name}`, bytes);
      } catch (e) {
        throw new ErrataFolderError(dir, (e as Error).message);
      }
    })
    .sort((a, b) => (a.consensusTimestamp < b.consensusTimestamp ? -1 : a.consensusTimestamp > b.consensusTimestamp ? 1 : 0));
  return { dir, balanceOffsets, missingTransactions };
}
