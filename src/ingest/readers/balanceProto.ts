/**
 * The protobuf balance file: `AllAccountBalances` {consensusTimestamp 1 (Timestamp), allAccounts 2
 * (SingleAccountBalances {accountID 1, hbarBalance 2, tokenUnitBalances 3 (TokenUnitBalance
 * {tokenId 1, balance 2})})}.
 */
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';
import { readEntityId } from '../proto/transactionDetails.js';
import { timestampNanos } from '../proto/transactionRecord.js';
import { StreamFileError } from '../streamError.js';
import type { AccountBalance, BalanceFile, TokenBalance } from './balanceFile.js';

function readTokenBalance(bytes: Uint8Array): TokenBalance | null {
  let tokenId: bigint | null = null;
  let balance = 0n;
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) tokenId = readEntityId(r.bytes());
    else if (field === 2 && wire === WIRE_VARINT) balance = BigInt.asUintN(64, int64(r));
    else return false;
    return true;
  });
  return tokenId === null ? null : { tokenId, balance };
}

function readAccount(bytes: Uint8Array): AccountBalance | null {
  let accountId: bigint | null = null;
  let balance = 0n;
  const tokens: TokenBalance[] = [];
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WIRE_LENGTH) accountId = readEntityId(r.bytes());
    else if (field === 2 && wire === WIRE_VARINT) balance = BigInt.asUintN(64, int64(r));
    else if (field === 3 && wire === WIRE_LENGTH) {
      const token = readTokenBalance(r.bytes());
      if (token) tokens.push(token);
    } else return false;
    return true;
  });
  return accountId === null ? null : { accountId, balance, tokens };
}

export function readBalanceProto(name: string, content: Buffer): BalanceFile {
  let consensusTimestamp: bigint | null = null;
  const accounts: AccountBalance[] = [];
  try {
    readFields(content, (field, wire, r) => {
      if (wire !== WIRE_LENGTH) return false;
      if (field === 1) consensusTimestamp = timestampNanos(r.bytes());
      else if (field === 2) {
        const account = readAccount(r.bytes());
        if (account === null) throw new Error('an account balance without an account id');
        accounts.push(account);
      } else return false;
      return true;
    });
  } catch (e) {
    throw new StreamFileError(name, `malformed AllAccountBalances (${(e as Error).message})`);
  }
  if (consensusTimestamp === null) throw new StreamFileError(name, 'AllAccountBalances without a consensus timestamp');
  return { name, consensusTimestamp, accounts };
}
