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

export function readBalanceFile(name: string, downloaded: Buffer): BalanceFile {
  const short = name.slice(name.lastIndexOf('/') + 1);
  if (short.endsWith('.csv')) return readBalanceCsv(short, downloaded);
  if (short.endsWith('.pb.gz')) return readBalanceProto(short, contentOf(name, downloaded));
  throw new StreamFileError(name, 'not an account balance file (_Balances.csv or _Balances.pb.gz)');
}
