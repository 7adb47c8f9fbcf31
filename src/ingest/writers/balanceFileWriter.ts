/**
 * Writes one verified balance file in ONE database transaction, as the importer's
 * AccountBalanceFileParser does: its `account_balance_file` row, an `account_balance` row per
 * account and a `token_balance` row per account and token (a repeated pair kept once). The first
 * balance file the database takes is also the starting state of `entity.balance` and
 * `token_account.balance` (see initialBalances.ts).
 */
import type { Db, Queryable } from '../../db/db.js';
import { insertRows } from '../../ledgerSetup/insert.js';
import type { ColumnValues } from '../../ledgerSetup/insert.js';
import { balanceFileTimeOffset } from '../errata/balanceOffsets.js';
import type { BalanceFile } from '../readers/balanceFile.js';
import { insertColumns } from './columnInsert.js';
import { initializeBalances } from './initialBalances.js';

export interface AcceptedBalanceFile {
  file: BalanceFile;
  /** the hash the nodes signed, hex */
  fileHash: string;
}

export interface LastBalanceFile {
  name: string;
  consensusTimestamp: bigint;
}

/** The newest balance file read from the network (snapshots the ingester took itself are not). */
export async function lastBalanceFile(db: Queryable): Promise<LastBalanceFile | null> {
  const rows = await db.query<{ name: string; consensus_timestamp: bigint }>(
    'select name, consensus_timestamp from account_balance_file where synthetic is false order by consensus_timestamp desc limit 1',
  );
  const row = rows[0];
  return row ? { name: row.name, consensusTimestamp: row.consensus_timestamp } : null;
}

function balanceRows(file: BalanceFile): { accounts: ColumnValues[]; tokens: ColumnValues[] } {
  const ts = file.consensusTimestamp;
  const accounts: ColumnValues[] = [];
  const tokens = new Map<string, ColumnValues>();
  for (const a of file.accounts) {
    accounts.push({ account_id: a.accountId, balance: a.balance, consensus_timestamp: ts });
    for (const t of a.tokens) {
      const key = `${a.accountId}:${t.tokenId}`;
      // the importer keeps the first of a repeated (account, token) pair
      if (!tokens.has(key)) tokens.set(key, { account_id: a.accountId, balance: t.balance, consensus_timestamp: ts, token_id: t.tokenId });
    }
  }
  return { accounts, tokens: [...tokens.values()] };
}

/**
 * Writes the file's rows; the first one also initialises the balances. Throws (and writes nothing)
 * when a statement fails. `balanceOffsets`: mainnet's errata `balance-offsets.txt`, null without it.
 */
export async function writeBalanceFile(
  db: Db,
  accepted: AcceptedBalanceFile,
  network: string | null,
  balanceOffsets: ReadonlySet<bigint> | null = null,
): Promise<void> {
  const loadStart = BigInt(Math.floor(Date.now() / 1000));
  const { file } = accepted;
  const { accounts, tokens } = balanceRows(file);
  await db.transaction(async (tx) => {
    const first = (await lastBalanceFile(tx)) === null;
    await insertColumns(db, tx, 'account_balance', accounts);
    await insertColumns(db, tx, 'token_balance', tokens);
    const timeOffset = balanceFileTimeOffset(network, file.consensusTimestamp, balanceOffsets);
    await insertRows(tx, 'account_balance_file', [
      {
        consensus_timestamp: file.consensusTimestamp,
        count: BigInt(file.accounts.length),
        load_start: loadStart,
        load_end: BigInt(Math.floor(Date.now() / 1000)),
        file_hash: accepted.fileHash,
        name: file.name,
        bytes: null,
        time_offset: timeOffset,
        synthetic: false,
      },
    ]);
    if (first) await initializeBalances(tx, file.consensusTimestamp, timeOffset);
  });
}
