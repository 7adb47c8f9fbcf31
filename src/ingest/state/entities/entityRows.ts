/**
 * The `entity` and `entity_history` rows a file's merged changes give, against the entity's stored
 * row, as the importer's history upsert computes them:
 *  - when the file makes versions of a stored entity, the stored row goes to history, closed at the
 *    first version's lower timestamp (with the balance it had before the file);
 *  - each version the file closed goes to history, each attribute it does not set taken from the
 *    stored row, else the column default;
 *  - the open version becomes the row; a change without history only updates a stored row
 *    (`balanceUpdate`): an entity the database does not hold and the file neither created nor changed
 *    (one only seen in a transfer) gets no row.
 * The balance is the stored balance plus the file's sum for accounts and contracts, and none for other
 * types the database does not hold; the ethereum nonce defaults to 0 for accounts only.
 */
import { decodeEntityId } from '../../../domain/entityId.js';
import { ATTRIBUTE_NAMES, type EntityAttributes, type EntityType, type EntityVersion } from './entityVersion.js';

/** An `entity` row as stored: every column, NULL as null. */
export interface EntityRow {
  id: bigint;
  shard: bigint;
  realm: bigint;
  num: bigint;
  timestamp_range: string;
  alias: Buffer | null;
  auto_renew_account_id: bigint | null;
  auto_renew_period: bigint | null;
  balance: bigint | null;
  balance_timestamp: bigint | null;
  created_timestamp: bigint | null;
  decline_reward: boolean;
  deleted: boolean | null;
  delegation_address: Buffer | null;
  ethereum_nonce: bigint | null;
  evm_address: Buffer | null;
  expiration_timestamp: bigint | null;
  key: Buffer | null;
  max_automatic_token_associations: number | null;
  memo: string;
  obtainer_id: bigint | null;
  permanent_removal: boolean | null;
  proxy_account_id: bigint | null;
  public_key: string | null;
  receiver_sig_required: boolean | null;
  stake_period_start: bigint | null;
  staked_account_id: bigint | null;
  staked_node_id: bigint | null;
  type: EntityType;
}

/** The column defaults the importer's upsert falls back to (the table's own defaults). */
const DEFAULTS: Partial<Record<keyof EntityAttributes, unknown>> = {
  decline_reward: false,
  memo: '',
  stake_period_start: -1n,
  staked_node_id: -1n,
  type: 'UNKNOWN',
};

/** `[lower,upper)` as PostgreSQL prints an int8range. */
export function rangeText(range: { lower: bigint; upper: bigint | null }): string {
  return `[${range.lower},${range.upper ?? ''})`;
}

/**
 * A stored range closed at `upper`, as `int8range(lower(stored), upper)` does: the stored lower bound
 * kept (none when the stored range has none).
 */
export function closedAt(stored: string, upper: bigint): string {
  const m = /^[[(](-?\d*),/.exec(stored);
  const lower = m?.[1] ?? '';
  return lower === '' ? `(,${upper})` : `[${lower},${upper})`;
}

function coalesced(change: EntityVersion, stored: EntityRow | undefined): EntityRow {
  const t = change.attributes;
  const { shard, realm, num } = decodeEntityId(change.id);
  const row: Record<string, unknown> = { id: change.id, shard, realm, num };
  for (const name of ATTRIBUTE_NAMES) row[name] = t[name] ?? stored?.[name] ?? DEFAULTS[name] ?? null;
  const type = stored?.type ?? t.type;
  const storedBalance = stored?.balance ?? null;
  if (type === 'ACCOUNT' || type === 'CONTRACT') row.balance = (storedBalance ?? 0n) + (t.balance ?? 0n);
  else row.balance = storedBalance === null ? null : storedBalance + (t.balance ?? 0n);
  const nonce = t.ethereum_nonce ?? stored?.ethereum_nonce ?? null;
  row.ethereum_nonce = type === 'ACCOUNT' ? (nonce ?? 0n) : nonce;
  // a key without a single primitive key clears the public key
  row.public_key = t.public_key === '' ? null : (t.public_key ?? stored?.public_key ?? null);
  row.timestamp_range = change.range ? rangeText(change.range) : (stored?.timestamp_range ?? null);
  return row as unknown as EntityRow;
}

export interface EntityWrites {
  history: EntityRow[];
  /** rows to insert or replace in `entity` */
  current: EntityRow[];
}

/**
 * The rows the versions of one entity give (a file's changes of one entity are either all versions,
 * or one change without history: see `EntityChanges`); `versions` in the order they were made. A
 * change without history goes to `balanceUpdate` instead, which needs no stored row.
 */
export function entityRows(versions: readonly EntityVersion[], stored: EntityRow | undefined, into: EntityWrites): void {
  if (versions.some((v) => v.range === null)) throw new Error('a change without history is a balance update');
  if (stored && versions.length > 0) {
    const first = versions.reduce((a, b) => (b.range!.lower < a.range!.lower ? b : a));
    into.history.push({ ...stored, timestamp_range: closedAt(stored.timestamp_range, first.range!.lower) });
  }
  for (const v of versions) {
    if (v.range!.upper !== null) into.history.push(coalesced(v, stored));
    else into.current.push(coalesced(v, stored));
  }
}

/**
 * A change without history, as the values the balance update statement (entityApplier.ts) folds into
 * the stored row with the same rules as `coalesced`: the balance a delta, the others null when not set.
 * It changes only a stored row: an entity only seen in transfers gets none.
 */
export interface BalanceUpdate {
  id: bigint;
  delta: bigint | null;
  balance_timestamp: bigint | null;
  ethereum_nonce: bigint | null;
  stake_period_start: bigint | null;
}

export function balanceUpdate(change: EntityVersion): BalanceUpdate {
  const a = change.attributes;
  return {
    id: change.id,
    delta: a.balance ?? null,
    balance_timestamp: a.balance_timestamp ?? null,
    ethereum_nonce: a.ethereum_nonce ?? null,
    stake_period_start: a.stake_period_start ?? null,
  };
}
