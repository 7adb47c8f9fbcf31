/**
 * The address book the stream itself publishes: file 0.0.102, as its `file_data` rows give it (the
 * contents of the latest FileCreate or FileUpdate with the FileAppends after it, in time order). A
 * book written over several transactions does not parse until its last part is there; until then
 * the previous book stays in force, as the importer keeps it.
 */
import type { Queryable } from '../../db/db.js';
import { encodeEntityId } from '../../domain/entityId.js';
import { type AddressBook, parseAddressBook } from './addressBook.js';

export const ADDRESS_BOOK_FILE_NUM = 102n;

/** The contents of the file as of now: the latest create or update and the appends after it. */
export function fileContents(rows: { transaction_type: number; file_data: Uint8Array | null }[]): Buffer {
  let start = 0;
  rows.forEach((row, i) => {
    if (row.transaction_type === 17 || row.transaction_type === 19) start = i;
  });
  return Buffer.concat(rows.slice(start).map((r) => Buffer.from(r.file_data ?? new Uint8Array())));
}

/** The stored 0.0.102 book when its contents parse into one with keys; null otherwise. */
export async function streamAddressBook(db: Queryable, shardRealm: { shard: bigint; realm: bigint }): Promise<AddressBook | null> {
  const entity = encodeEntityId(shardRealm.shard, shardRealm.realm, ADDRESS_BOOK_FILE_NUM);
  const latest = await db.query<{ consensus_timestamp: bigint }>(
    `select consensus_timestamp from file_data where entity_id = $1 and transaction_type in (17, 19)
     order by consensus_timestamp desc limit 1`,
    [entity],
  );
  const from = latest[0]?.consensus_timestamp;
  if (from === undefined) return null;
  const rows = await db.query<{ transaction_type: number; file_data: Uint8Array | null }>(
    'select transaction_type, file_data from file_data where entity_id = $1 and consensus_timestamp >= $2 order by consensus_timestamp',
    [entity, from],
  );
  const contents = fileContents(rows);
  if (contents.length === 0) return null;
  try {
    return parseAddressBook(contents, `0.0.${ADDRESS_BOOK_FILE_NUM} in the stream`);
  } catch {
    return null;
  }
}
