/**
 * The `TransactionBody` inside a record stream's `Transaction`: from signedTransactionBytes (5, a
 * SignedTransaction with bodyBytes 1), bodyBytes (4) or the deprecated body (1). Its type is the field
 * number of its `data` oneof, which is the transaction type id the schema stores.
 */
import { readFields, WIRE_LENGTH } from '../../domain/protobuf.js';
import { KNOWN_TRANSACTION_TYPE_IDS } from '../../domain/transactionTypes.js';

const TYPE_IDS = new Set(KNOWN_TRANSACTION_TYPE_IDS);

function lengthField(bytes: Uint8Array, wanted: number): Uint8Array | null {
  let found: Uint8Array | null = null;
  readFields(bytes, (field, wire, r) => {
    if (field !== wanted || wire !== WIRE_LENGTH) return false;
    found = r.bytes();
    return true;
  });
  return found;
}

/** The serialized TransactionBody of a serialized Transaction; null when it has none. */
export function transactionBodyBytes(transaction: Uint8Array): Uint8Array | null {
  const signed = lengthField(transaction, 5);
  if (signed) return lengthField(signed, 1);
  return lengthField(transaction, 4) ?? lengthField(transaction, 1);
}

/** The transaction type id of a serialized Transaction; null when its body names no known type. */
export function transactionTypeOf(transaction: Uint8Array): number | null {
  const body = transactionBodyBytes(transaction);
  if (!body) return null;
  let type: number | null = null;
  readFields(body, (field, wire) => {
    if (type === null && wire === WIRE_LENGTH && TYPE_IDS.has(field)) type = field;
    return false;
  });
  return type;
}
