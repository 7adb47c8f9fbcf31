/**
 * The CSV balance files. v1: `TimeStamp:<ISO time>`, the header `shardNum,realmNum,accountNum,balance`,
 * one account a line. v2: `# version:2`, `# TimeStamp:<ISO time>`, the header with a fifth column
 * `tokenBalances`, the base64 of a `TokenBalances` message {tokenBalances 1 (TokenBalance {tokenId 1,
 * balance 2})}. Blank lines are skipped; anything else that is not an account line is refused.
 */
import { encodeEntityId } from '../../domain/entityId.js';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { readEntityId } from '../proto/transactionDetails.js';
import { StreamFileError } from '../streamError.js';
import type { AccountBalance, BalanceFile, TokenBalance } from './balanceFile.js';

const TIMESTAMP = /^(?:# )?TimeStamp:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/;
const HEADER_V1 = 'shardnum,realmnum,accountnum,balance';
const HEADER_V2 = `${HEADER_V1},tokenbalances`;
const NUMBER = /^\d{1,19}$/;

/** `2019-08-30T18:15:00.016002001Z` as nanoseconds since the epoch. */
function isoNanos(seconds: string, fraction: string | undefined): bigint {
  const ms = Date.parse(`${seconds}Z`);
  return BigInt(ms / 1000) * 1_000_000_000n + BigInt((fraction ?? '').padEnd(9, '0'));
}

function tokenBalancesOf(name: string, line: number, base64: string): TokenBalance[] {
  const tokens: TokenBalance[] = [];
  if (base64 === '') return tokens;
  const bytes = Buffer.from(base64, 'base64');
  try {
    readFields(bytes, (field, wire, r) => {
      if (field !== 1 || wire !== WIRE_LENGTH) return false;
      let tokenId: bigint | null = null;
      let balance = 0n;
      readFields(r.bytes(), (f, w, tr) => {
        if (f === 1 && w === WIRE_LENGTH) tokenId = readEntityId(tr.bytes());
        else if (f === 2 && w === WIRE_VARINT) balance = BigInt.asUintN(64, int64(tr));
        else return false;
        return true;
      });
      if (tokenId === null) throw new Error('a token balance without a token id');
      tokens.push({ tokenId, balance });
      return true;
    });
  } catch (e) {
    throw new StreamFileError(name, `line ${line}: malformed token balances (${(e as Error).message})`);
  }
  return tokens;
}

export function readBalanceCsv(name: string, bytes: Buffer): BalanceFile {
  const lines = bytes.toString('utf8').split(/\r?\n/);
  let consensusTimestamp: bigint | null = null;
  let columns = 0;
  const accounts: AccountBalance[] = [];
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (columns === 0) {
      const time = TIMESTAMP.exec(line);
      if (time) consensusTimestamp = isoNanos(time[1]!, time[2]);
      else if (line.toLowerCase() === HEADER_V1) columns = 4;
      else if (line.toLowerCase() === HEADER_V2) columns = 5;
      else if (!/^# version:\d+$/.test(line)) throw new StreamFileError(name, `line ${i + 1}: not a balance file header`);
      continue;
    }
    const parts = line.split(',');
    if (parts.length !== columns || !parts.slice(0, 4).every((p) => NUMBER.test(p))) {
      throw new StreamFileError(name, `line ${i + 1}: not an account balance line of ${columns} columns`);
    }
    const [shard, realm, num, balance] = parts.map((p, k) => (k < 4 ? BigInt(p) : 0n)) as [bigint, bigint, bigint, bigint];
    accounts.push({
      accountId: encodeEntityId(shard, realm, num),
      balance,
      tokens: columns === 5 ? tokenBalancesOf(name, i + 1, parts[4]!) : [],
    });
  }
  if (consensusTimestamp === null) throw new StreamFileError(name, 'no TimeStamp line');
  if (columns === 0) throw new StreamFileError(name, 'no header line (shardNum,realmNum,accountNum,balance)');
  return { name, consensusTimestamp, accounts };
}
