/**
 * The time offset of a balance file (`account_balance_file.time_offset`), as the importer's
 * ErrataMigration sets it on mainnet: −1 ns for the files of `balance-offsets.txt`, whose balances
 * are those just before their consensus time, and 53 ns for the files between 2022-07-21 and
 * 2022-10-21. Transfers after the file's time plus its offset are not in its balances.
 */
import { balanceOffsetTimestamps } from './mainnetErrataFiles.js';

const FIXED_OFFSET = 53;
const FIXED_FROM = 1658420100626004000n;
const FIXED_TO = 1666368000880378770n;

export function balanceFileTimeOffset(network: string | null, consensusTimestamp: bigint): number {
  if (network !== 'mainnet') return 0;
  if (consensusTimestamp >= FIXED_FROM && consensusTimestamp <= FIXED_TO) return FIXED_OFFSET;
  return balanceOffsetTimestamps().has(consensusTimestamp) ? -1 : 0;
}
