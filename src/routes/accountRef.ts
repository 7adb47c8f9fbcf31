/**
 * The account reference of every route under /api/v1/accounts/{idOrAliasOrEvmAddress}: the path
 * value parsed, and resolved to an encoded entity id, numeric and long-zero forms directly, opaque
 * EVM addresses and base32 aliases through `entity`. A statement that needs the account resolves it itself (`accountIdSql`), saving the round trip
 * of a separate lookup; `idOfRef` is that lookup on its own, for the paths that need only the id.
 */
import type { Queryable } from '../db/db.js';
import { SqlParams } from '../db/statements.js';
import { base32Decode } from '../domain/base32.js';
import { parseEntityRef, type ShardRealm } from '../domain/entityId.js';
import { ambiguousAddress, invalidParameter, notFound } from '../http/errors.js';

export const ACCOUNT_PATH_PARAM = 'idOrAliasOrEvmAddress';

const ALIAS = /^(?:(\d{1,5})\.)?(?:(\d{1,5})\.)?([A-Z2-7]+)$/;

/** A parsed path value: an encoded id, or an opaque EVM address or alias still to be looked up. */
export type AccountRef = { kind: 'id'; id: bigint } | { kind: 'evm'; address: Buffer } | { kind: 'alias'; alias: Buffer };

/** The conditions of a live entity holding the EVM address or alias in `placeholder`. */
const LIVE_ENTITY = {
  evm: (placeholder: string) => `evm_address = ${placeholder} and deleted = false`,
  alias: (placeholder: string) => `alias = ${placeholder} and coalesce(deleted, false) <> true`,
};

const IDS_BY_EVM_ADDRESS_SQL = `select id from entity where ${LIVE_ENTITY.evm('$1')} limit 2`;

/** Entities with this EVM address that are not deleted (a NULL `deleted` does not count as live). */
export async function findIdsByEvmAddress(db: Queryable, address: Uint8Array): Promise<{ id: bigint }[]> {
  return db.query<{ id: bigint }>(IDS_BY_EVM_ADDRESS_SQL, [address]);
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

/** The path value parsed; anything unparsable is a 400 `Invalid parameter: idOrAliasOrEvmAddress`. */
export function parseAccountRef(text: string, system: ShardRealm): AccountRef {
  const ref = parseEntityRef(text, system);
  if (ref) return ref;
  const alias = parseAlias(text, system);
  if (alias === null) throw invalidParameter(ACCOUNT_PATH_PARAM);
  return { kind: 'alias', alias };
}

/**
 * A one-row query of `id` (bigint) and `matches` (int): the id itself with 1, or the live entity
 * holding the EVM address or alias with how many do (0, 1, or 2 for more than one; id NULL when 0).
 */
export function accountIdSql(ref: AccountRef, params: SqlParams): string {
  if (ref.kind === 'id') return `select ${params.add(ref.id)}::bigint as id, 1 as matches`;
  const where = ref.kind === 'evm' ? LIVE_ENTITY.evm(params.add(ref.address)) : LIVE_ENTITY.alias(params.add(ref.alias));
  return `select min(id) as id, count(*)::int as matches from (select id from entity where ${where} limit 2) m`;
}

/**
 * Checks what `accountIdSql` found: none is a 404 (`Not found` for an EVM address, `No account
 * with a matching alias found` for an alias), more than one a 500.
 */
export function checkMatches(ref: AccountRef, matches: number): void {
  if (matches === 1) return;
  if (matches > 1) throw ambiguousAddress();
  throw notFound(ref.kind === 'alias' ? 'No account with a matching alias found' : 'Not found');
}

/** The encoded id of a parsed path value; numeric ids need not exist. */
export async function idOfRef(db: Queryable, ref: AccountRef): Promise<bigint> {
  if (ref.kind === 'id') return ref.id;
  const params = new SqlParams();
  const rows = await db.query<{ id: bigint; matches: number }>(accountIdSql(ref, params), params.values);
  checkMatches(ref, rows[0]!.matches);
  return rows[0]!.id;
}
