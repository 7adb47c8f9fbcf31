/**
 * One change to an entity as the importer holds it before writing: only the attributes the change
 * sets (absent = not set), and a timestamp range when the change makes a new version of the entity
 * (creations, updates, deletions, staking period restarts). A change without a range touches only the
 * attributes that make no history: the balance and its timestamp, the ethereum nonce, the stake period
 * start. `mergeEntity` folds two changes of one entity in consensus order with the importer's rules.
 */

export type EntityType = 'UNKNOWN' | 'ACCOUNT' | 'CONTRACT' | 'FILE' | 'TOPIC' | 'TOKEN' | 'SCHEDULE';

/** The attributes of an `entity` row a change may set (the row's other columns: id, shard, realm, num, timestamp_range). */
export interface EntityAttributes {
  alias?: Buffer;
  auto_renew_account_id?: bigint;
  auto_renew_period?: bigint;
  balance?: bigint;
  balance_timestamp?: bigint;
  created_timestamp?: bigint;
  decline_reward?: boolean;
  deleted?: boolean;
  delegation_address?: Buffer;
  ethereum_nonce?: bigint;
  evm_address?: Buffer;
  expiration_timestamp?: bigint;
  key?: Buffer;
  max_automatic_token_associations?: number;
  memo?: string;
  obtainer_id?: bigint;
  permanent_removal?: boolean;
  proxy_account_id?: bigint;
  /** '' when a key was set that has no single primitive key: it clears the stored public key */
  public_key?: string;
  receiver_sig_required?: boolean;
  stake_period_start?: bigint;
  staked_account_id?: bigint;
  staked_node_id?: bigint;
  type?: EntityType;
}

export const ATTRIBUTE_NAMES: readonly (keyof EntityAttributes)[] = [
  'alias',
  'auto_renew_account_id',
  'auto_renew_period',
  'balance',
  'balance_timestamp',
  'created_timestamp',
  'decline_reward',
  'deleted',
  'delegation_address',
  'ethereum_nonce',
  'evm_address',
  'expiration_timestamp',
  'key',
  'max_automatic_token_associations',
  'memo',
  'obtainer_id',
  'permanent_removal',
  'proxy_account_id',
  'public_key',
  'receiver_sig_required',
  'stake_period_start',
  'staked_account_id',
  'staked_node_id',
  'type',
];

export interface EntityVersion {
  id: bigint;
  attributes: EntityAttributes;
  /** [lower, upper): upper null while the version is current; null for a change that makes no version */
  range: { lower: bigint; upper: bigint | null } | null;
}

function addBalance(to: EntityAttributes, delta: bigint | undefined): void {
  if (delta === undefined) return;
  to.balance = (to.balance ?? 0n) + delta;
}

/** Copies into `dest` each attribute it does not set from `src`, as the importer's entity merge does. */
function fillFrom(dest: EntityAttributes, src: EntityAttributes): void {
  for (const name of ATTRIBUTE_NAMES) {
    if (name === 'balance' || name === 'created_timestamp') continue;
    if (dest[name] === undefined && src[name] !== undefined) (dest as Record<string, unknown>)[name] = src[name];
  }
}

/**
 * Folds `current` (the later change) into `previous` (the entity's state so far in this file) and
 * returns the state to keep. When that is `current` itself, it is a new version to write beside the
 * previous one (whose range this closes); otherwise it is `previous`, changed in place.
 */
export function mergeEntity(previous: EntityVersion, current: EntityVersion): EntityVersion {
  const prev = previous.attributes;
  const cur = current.attributes;
  if (current.range === null) {
    // no new version: only the attributes without history move to the state so far
    addBalance(prev, cur.balance);
    if (cur.balance_timestamp !== undefined) prev.balance_timestamp = cur.balance_timestamp;
    if (cur.ethereum_nonce !== undefined) prev.ethereum_nonce = cur.ethereum_nonce;
    if (cur.stake_period_start !== undefined) prev.stake_period_start = cur.stake_period_start;
    return previous;
  }
  // a change without history merges into the one with; two versions of one transaction merge into the earlier object
  const sameLower = previous.range !== null && previous.range.lower === current.range.lower;
  let src = previous.range !== null ? previous : current;
  let dest = previous.range !== null ? current : previous;
  if (sameLower) {
    src = current;
    dest = previous;
  }
  const d = dest.attributes;
  const s = src.attributes;
  // the importer copies the created timestamp unconditionally
  if (s.created_timestamp === undefined) delete d.created_timestamp;
  else d.created_timestamp = s.created_timestamp;
  addBalance(d, s.balance);
  fillFrom(d, s);
  if (dest.range === null) {
    // the change without history takes the version's range and type (a transfer may come before the creation)
    dest.range = src.range;
    if (s.type === undefined) delete d.type;
    else d.type = s.type;
  } else if (!sameLower && src.range !== null) {
    src.range = { lower: src.range.lower, upper: dest.range.lower };
  }
  return dest;
}

/**
 * The changes of one file, merged per entity in consensus order as the importer's parser context
 * does: `versions` of each entity in the order they were made (the last one the current state).
 */
export class EntityChanges {
  private readonly state = new Map<bigint, EntityVersion>();
  readonly versions = new Map<bigint, EntityVersion[]>();

  add(change: EntityVersion): void {
    if (change.id === 0n) return;
    const previous = this.state.get(change.id);
    if (!previous) {
      this.state.set(change.id, change);
      this.versions.set(change.id, [change]);
      return;
    }
    const merged = mergeEntity(previous, change);
    this.state.set(change.id, merged);
    if (merged === change) this.versions.get(change.id)!.push(change);
  }

  /** The entity's state so far in this file (not what the database holds), if the file changed it. */
  current(id: bigint): EntityVersion | undefined {
    return this.state.get(id);
  }

  ids(): bigint[] {
    return [...this.versions.keys()];
  }
}
