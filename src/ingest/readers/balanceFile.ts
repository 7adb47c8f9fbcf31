/**
 * An account balance file, whatever its format: CSV v1, CSV v2 (with token balances) or the
 * protobuf `AllAccountBalances` (`.pb.gz`). The format is chosen by the name, as the importer's
 * downloader does; the content decides the CSV version.
 */
import { StreamFileError } from '../streamError.js';
import { readBalanceCsv } from './balanceCsv.js';
import { readBalanceProto } from './balanceProto.js';
import { contentOf } from './streamContent.js';

export interface TokenBalance {
  tokenId: bigint;
  balance: bigint;
}

export interface AccountBalance {
  accountId: bigint;
  balance: bigint;
  tokens: TokenBalance[];
}

export interface BalanceFile {
  name: string;
  consensusTimestamp: bigint;
  accounts: AccountBalance[];
}

export const BALANCE_FILE = /_Balances\.(csv|pb\.gz)$/;

const MAX_INT64 = 2n ** 63n - 1n;

/** Balances are bigint columns: a file with one beyond them is refused rather than half written. */
function checkRange(file: BalanceFile): BalanceFile {
  for (const a of file.accounts) {
    const tooLarge = a.balance > MAX_INT64 ? a.balance : a.tokens.find((t) => t.balance > MAX_INT64)?.balance;
    if (tooLarge !== undefined) throw new StreamFileError(file.name, `balance ${tooLarge} is beyond a 64-bit integer`);
  }
  return file;
}

export function readBalanceFile(name: string, downloaded: Buffer): BalanceFile {
  const short = name.slice(name.lastIndexOf('/') + 1);
  if (short.endsWith('.csv')) return checkRange(readBalanceCsv(short, downloaded));
  if (short.endsWith('.pb.gz')) return checkRange(readBalanceProto(short, contentOf(name, downloaded)));
  throw new StreamFileError(name, 'not an account balance file (_Balances.csv or _Balances.pb.gz)');
}
