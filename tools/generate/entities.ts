/** `entity` / `entity_history` rows of every kind, in the column order of TABLES.entity. */
import { bool, bytea, int, NULL, range, text } from './copyText.js';
import { accountKey, accountProfile, adminKey, contractProfile } from './profiles.js';
import { nsText } from './time.js';
import { TREASURY } from './layout.js';
import type { World } from './world.js';

const AUTO_RENEW_PERIOD = '7776000';
const AUTO_RENEW_PERIOD_NS = 7_776_000e9;

interface EntityFields {
  type: 'ACCOUNT' | 'CONTRACT' | 'TOKEN' | 'TOPIC' | 'FILE';
  alias?: Buffer | null;
  evmAddress?: Buffer | null;
  key?: Buffer | null;
  publicKey?: string | null;
  memo?: string;
  /** tinybars, or null for entities without a balance */
  balance?: bigint | null;
  deleted?: boolean;
  declineReward?: boolean;
  ethereumNonce?: number;
  maxAutomaticTokenAssociations?: number | null;
  receiverSigRequired?: boolean | null;
  stakedAccountNum?: number;
  stakedNodeId?: number;
  stakePeriodStart?: number;
  autoRenewPeriod?: string | null;
  /** renewed every auto-renew period since creation: the expiry is the first renewal after this offset */
  liveAt?: number;
  /** exclusive end of the version (history rows); null for the current one */
  until?: number | null;
}

function entityRow(w: World, num: number, f: EntityFields): string[] {
  const hasBalance = f.balance !== undefined && f.balance !== null;
  return [
    w.idText(num),
    String(w.system.shard),
    String(w.system.realm),
    String(num),
    f.type,
    bytea(f.alias ?? null),
    bytea(f.evmAddress ?? null),
    bytea(f.key ?? null),
    text(f.publicKey ?? null),
    text(f.memo ?? ''),
    hasBalance ? String(f.balance) : NULL,
    hasBalance ? nsText(w.balanceAt[num]!) : NULL,
    nsText(w.createdAt[num]!),
    f.liveAt === undefined ? NULL : nsText(expiry(w.createdAt[num]!, f.liveAt)),
    f.autoRenewPeriod === undefined ? AUTO_RENEW_PERIOD : (f.autoRenewPeriod ?? NULL),
    NULL,
    bool(f.deleted ?? false),
    bool(f.declineReward ?? false),
    String(f.ethereumNonce ?? 0),
    f.maxAutomaticTokenAssociations === undefined ? NULL : int(f.maxAutomaticTokenAssociations),
    f.receiverSigRequired === undefined ? 'f' : bool(f.receiverSigRequired),
    f.stakedAccountNum ? w.idText(f.stakedAccountNum) : NULL,
    String(f.stakedNodeId ?? -1),
    String(f.stakePeriodStart ?? -1),
    range(nsText(w.versionStart[num]!), f.until === undefined || f.until === null ? null : nsText(f.until)),
  ];
}

function expiry(created: number, liveAt: number): number {
  return created + Math.max(1, Math.ceil((liveAt - created) / AUTO_RENEW_PERIOD_NS)) * AUTO_RENEW_PERIOD_NS;
}

/** A user account as of its current version (`until` set: the version that ends there). */
export function accountEntityRow(w: World, num: number, until: number | null = null): string[] {
  const version = w.version[num]!;
  const profile = accountProfile(w.seed, num);
  const settings = w.settings(num, version);
  return entityRow(w, num, {
    type: 'ACCOUNT',
    alias: profile.alias,
    evmAddress: profile.evmAddress,
    key: accountKey(w.seed, num, version, profile),
    publicKey: profile.publicKey,
    memo: settings.memo,
    balance: w.balance[num]!,
    deleted: w.deleted[num] === 1,
    declineReward: settings.declineReward,
    ethereumNonce: w.ethNonce[num]!,
    maxAutomaticTokenAssociations: settings.maxAutomaticTokenAssociations,
    receiverSigRequired: settings.receiverSigRequired,
    stakedAccountNum: settings.stakedAccountNum,
    stakedNodeId: settings.stakedNodeId,
    stakePeriodStart: settings.stakedNodeId >= 0 ? w.stakePeriodStart[num]! : -1,
    liveAt: until ?? w.endOffset,
    until,
  });
}

/** Treasury, node and fee accounts. */
export function systemAccountRow(w: World, num: number): string[] {
  return entityRow(w, num, {
    type: 'ACCOUNT',
    key: adminKey(w.seed, num),
    memo: num === TREASURY ? 'treasury' : '',
    balance: w.balance[num]!,
    maxAutomaticTokenAssociations: 0,
  });
}

export function contractEntityRow(w: World, num: number): string[] {
  const profile = contractProfile(w.seed, num);
  return entityRow(w, num, {
    type: 'CONTRACT',
    evmAddress: profile.evmAddress,
    key: adminKey(w.seed, num),
    memo: profile.memo,
    balance: w.balance[num]!,
    ethereumNonce: w.ethNonce[num]!,
    maxAutomaticTokenAssociations: 0,
    receiverSigRequired: null,
    liveAt: w.endOffset,
  });
}

export function tokenEntityRow(w: World, index: number): string[] {
  const profile = w.tokenProfile(index);
  return entityRow(w, w.layout.tokenNum(index), {
    type: 'TOKEN',
    key: profile.adminKey,
    memo: '',
    deleted: profile.deleted,
    autoRenewPeriod: AUTO_RENEW_PERIOD,
  });
}

export function topicEntityRow(w: World, num: number): string[] {
  return entityRow(w, num, { type: 'TOPIC', key: adminKey(w.seed, num), memo: `topic ${num}` });
}

export function fileEntityRow(w: World, num: number): string[] {
  return entityRow(w, num, { type: 'FILE', key: adminKey(w.seed, num), memo: '', autoRenewPeriod: null });
}
