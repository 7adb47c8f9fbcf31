/**
 * `is_approval` of the transfer rows as the importer sets it: from the body, not from the record
 * (the network does not echo the flag in every record). All false unless the body is a CryptoTransfer:
 * - hbar: a debit (or any transfer of a failed pre-2020 CryptoTransfer) listed in the body with the
 *   same account and amount takes that entry's flag;
 * - fungible tokens: a debit listed in the body for the token as it is in the record takes that
 *   entry's flag; else true when the body has an approved entry of the same account for the token;
 * - NFTs: the flag of the body's NFT transfer of the token with the same serial, sender and receiver.
 */
import type { CryptoTransferBody } from '../proto/cryptoTransferBody.js';
import type { AccountAmount, NftTransfer } from '../proto/transactionDetails.js';

export function hbarApproval(asked: CryptoTransferBody | null, t: AccountAmount, failedTransfer: boolean): boolean {
  if (asked === null || (t.amount >= 0n && !failedTransfer)) return false;
  return asked.transfers.find((a) => a.accountId === t.accountId && a.amount === t.amount)?.isApproval ?? false;
}

export function tokenApproval(asked: CryptoTransferBody | null, tokenId: bigint, t: AccountAmount): boolean {
  if (asked === null || t.amount >= 0n) return false;
  const listed = asked.tokenTransfers.filter((l) => l.tokenId === tokenId).flatMap((l) => l.transfers);
  const same = listed.find((a) => a.accountId === t.accountId && a.amount === t.amount && a.isApproval === t.isApproval);
  if (same) return same.isApproval;
  return listed.some((a) => a.accountId === t.accountId && a.isApproval);
}

export function nftApproval(asked: CryptoTransferBody | null, tokenId: bigint, t: NftTransfer): boolean {
  if (asked === null) return false;
  for (const list of asked.tokenTransfers) {
    if (list.tokenId !== tokenId) continue;
    const match = list.nftTransfers.find(
      (a) => a.serialNumber === t.serialNumber && a.senderAccountId === t.senderAccountId && a.receiverAccountId === t.receiverAccountId,
    );
    if (match) return match.isApproval;
  }
  return false;
}
