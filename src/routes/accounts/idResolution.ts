/**
 * Resolving the `{idOrAliasOrEvmAddress}` path value of the account routes to an encoded entity id:
 * numeric and long-zero forms directly, opaque EVM addresses and base32 aliases through `entity`.
 */
import type { Queryable } from '../../db/db.js';
import { base32Decode } from '../../domain/base32.js';
import { parseEntityRef, type ShardRealm } from '../../domain/entityId.js';
import { ApiError, invalidParameter, notFound } from '../../http/errors.js';

export const ACCOUNT_PATH_PARAM = 'idOrAliasOrEvmAddress';

const ALIAS = /^(?:(\d{1,5})\.)?(?:(\d{1,5})\.)?([A-Z2-7]+)$/;

async function single(rows: { id: bigint }[], notFoundMessage: string): Promise<bigint> {
  if (rows.length === 0) throw notFound(notFoundMessage);
  if (rows.length > 1) throw new ApiError(500, ['Internal error']);
  return rows[0]!.id;
}

/** Entities with this EVM address that are not deleted (a NULL `deleted` does not count as live). */
export async function findIdsByEvmAddress(db: Queryable, address: Uint8Array): Promise<{ id: bigint }[]> {
  return db.query<{ id: bigint }>('select id from entity where evm_address = $1 and deleted = false limit 2', [address]);
}

async function findIdsByAlias(db: Queryable, alias: Uint8Array): Promise<{ id: bigint }[]> {
  return db.query<{ id: bigint }>('select id from entity where alias = $1 and coalesce(deleted, false) <> true limit 2', [alias]);
}

/** The alias bytes of `shard.realm.ALIAS`, `realm.ALIAS` or `ALIAS` text, or null when it is not one. */
export function parseAlias(text: string, system: ShardRealm): Buffer | null {
  const m = ALIAS.exec(text);
  if (!m) return null;
  const [, first, second, encoded] = m;
  const shard = second !== undefined ? first : undefined;
  const realm = second !== undefined ? second : first;
  if (shard !== undefined && BigInt(shard) !== system.shard) return null;
  if (realm !== undefined && BigInt(realm) !== system.realm) return null;
  return base32Decode(encoded!);
}

/**
 * The encoded id for the path value. Numeric ids need not exist; an unknown EVM address is a 404
 * `Not found`, an unknown alias a 404 `No account with a matching alias found`, and anything
 * unparsable a 400 `Invalid parameter: idOrAliasOrEvmAddress`.
 */
export async function resolveAccountId(db: Queryable, text: string, system: ShardRealm): Promise<bigint> {
  const ref = parseEntityRef(text, system);
  if (ref?.kind === 'id') return ref.id;
  if (ref?.kind === 'evm') return single(await findIdsByEvmAddress(db, ref.address), 'Not found');
  const alias = parseAlias(text, system);
  if (alias === null) throw invalidParameter(ACCOUNT_PATH_PARAM);
  return single(await findIdsByAlias(db, alias), 'No account with a matching alias found');
}
