/**
 * The bootstrap address books shipped with the service (`src/ingest/addressbooks/`): `<network>` and
 * `<network>-<nanos>` (valid from that consensus time). A network starts from the latest dated book at
 * or before the start time, else its plain book.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';
import { type AddressBook, parseAddressBook } from './addressBook.js';

export const BUNDLED_ADDRESS_BOOKS_DIR = join(PROJECT_ROOT, 'src', 'ingest', 'addressbooks');

/** The file name of the book `network` starts from at `startNanos`; an Error when the network has none. */
export function bundledAddressBookName(network: string, startNanos: bigint, names = readdirSync(BUNDLED_ADDRESS_BOOKS_DIR)): string {
  let chosen: { name: string; from: bigint } | null = null;
  for (const name of names) {
    if (name === network && chosen === null) chosen = { name, from: -1n };
    const m = /^(.+)-(\d+)$/.exec(name);
    if (!m || m[1] !== network) continue;
    const from = BigInt(m[2]!);
    if (from <= startNanos && (chosen === null || from > chosen.from)) chosen = { name, from };
  }
  if (chosen === null) {
    const networks = [...new Set(names.map((n) => n.replace(/-\d+$/, '')))].sort().join(', ');
    throw new Error(`no bundled address book for network '${network}' (bundled: ${networks})`);
  }
  return chosen.name;
}

export function bundledAddressBook(network: string, startNanos: bigint): AddressBook {
  const name = bundledAddressBookName(network, startNanos);
  return parseAddressBook(readFileSync(join(BUNDLED_ADDRESS_BOOKS_DIR, name)), name);
}
