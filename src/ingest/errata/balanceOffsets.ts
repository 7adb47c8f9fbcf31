/**
 * The time offset of a balance file (`account_balance_file.time_offset`), as the importer's
 * ErrataMigration sets it on mainnet: −1 ns for the files of `balance-offsets.txt`, whose balances
 * are those just before their consensus time (when the operator gives the errata folder), and 53 ns
 * for the files between 2022-07-21 and 2022-10-21 (a rule of the importer's code, which needs no
 * file). Transfers after the file's time plus its offset are not in its balances.
 */
const FIXED_OFFSET = 53;
const FIXED_FROM = 1658420100626004000n;
const FIXED_TO = 1666368000880378770n;

/** `listed`: the timestamps of the errata folder's `balance-offsets.txt`, null without the folder. */
export function balanceFileTimeOffset(network: string | null, consensusTimestamp: bigint, listed: ReadonlySet<bigint> | null): number {
  if (network !== 'mainnet') return 0;
  if (consensusTimestamp >= FIXED_FROM && consensusTimestamp <= FIXED_TO) return FIXED_OFFSET;
  return listed?.has(consensusTimestamp) === true ? -1 : 0;
}
