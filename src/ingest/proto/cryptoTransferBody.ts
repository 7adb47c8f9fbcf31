/**
 * The transfers a CryptoTransfer's body asks for: CryptoTransferTransactionBody {transfers 1
 * (TransferList), tokenTransfers 2 (TokenTransferList)}. The importer compares the record's
 * transfers with them (approvals, mainnet's spurious transfers).
 */
import { readFields, WIRE_LENGTH } from '../../domain/protobuf.js';
import {
  type AccountAmount,
  readTokenTransferList,
  readTransferList,
  type TokenTransfers,
  type TransactionBodyDetails,
} from './transactionDetails.js';

const CRYPTO_TRANSFER = 14;

export interface CryptoTransferBody {
  transfers: AccountAmount[];
  tokenTransfers: TokenTransfers[];
}

/** The body's transfers; null when the body is not a CryptoTransfer. */
export function readCryptoTransferBody(body: TransactionBodyDetails): CryptoTransferBody | null {
  if (body.type !== CRYPTO_TRANSFER || body.data === null) return null;
  const out: CryptoTransferBody = { transfers: [], tokenTransfers: [] };
  readFields(body.data, (field, wire, r) => {
    if (wire !== WIRE_LENGTH) return false;
    if (field === 1) readTransferList(r.bytes(), out.transfers);
    else if (field === 2) {
      const list = readTokenTransferList(r.bytes());
      if (list) out.tokenTransfers.push(list);
    } else return false;
    return true;
  });
  return out;
}
