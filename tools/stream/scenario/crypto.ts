/**
 * The scenario's hbar sections. `transfers`: transfers between genesis accounts (some refused),
 * consensus messages and an exchange rate file update, which change no state the database holds.
 * `crypto`: accounts created with keys, memos, automatic associations and staking settings,
 * updated (key, memo, staking, decline reward), paying each other (one transfer with a staking
 * reward paid from 0.0.800) and deleted, one create refused, with the importer's entity rules
 * (CryptoCreate/CryptoUpdate/CryptoDelete handlers).
 */
import { encodeEntityId } from '../../../src/domain/entityId.js';
import { bytes, int, message, string } from '../protoWriter.js';
import { duration, entityRef, INSUFFICIENT_ACCOUNT_BALANCE, keyBytes, timestamp, transferList, wrapped } from './hapi.js';
import { ScenarioLedger, STAKING_REWARD_ACCOUNT, TransactionType, TREASURY } from './ledger.js';

const AUTO_RENEW_SECONDS = 7_776_000n;
const GENESIS_ACCOUNTS = [TREASURY, 50n, 55n, 57n, 58n].map((n) => encodeEntityId(0n, 0n, n));

export interface AccountSettings {
  memo?: string;
  initialBalance?: bigint;
  maxAutomaticAssociations?: number;
  receiverSigRequired?: boolean;
  stakedNodeId?: bigint;
  stakedAccountId?: bigint;
  declineReward?: boolean;
}

/** An ed25519 public key: what the importer keeps as `public_key` (hex) of a one-key Key. */
function newKey(ledger: ScenarioLedger): { key: Buffer; publicKey: string } {
  const raw = ledger.rng.bytes(32);
  return { key: keyBytes('ed25519', raw), publicKey: raw.toString('hex') };
}

/** CryptoCreate paid by the treasury: key 1, initialBalance 2, receiverSigRequired 8, autoRenewPeriod 9, memo 13, max_automatic_token_associations 14, staked_account_id 15, staked_node_id 16, decline_reward 17. */
export function createAccount(ledger: ScenarioLedger, settings: AccountSettings = {}): bigint {
  const ts = ledger.nextTimestamp();
  const id = ledger.newId();
  const { key, publicKey } = newKey(ledger);
  const initialBalance = settings.initialBalance ?? BigInt(ledger.rng.between(1_000_000, 900_000_000));
  const memo = settings.memo ?? '';
  const maxAuto = settings.maxAutomaticAssociations ?? 0;
  const data = Buffer.concat([
    message(1, key),
    int(2, initialBalance),
    ...(settings.receiverSigRequired ? [int(8, true)] : []),
    duration(9, AUTO_RENEW_SECONDS),
    ...(memo ? [string(13, memo)] : []),
    ...(maxAuto !== 0 ? [int(14, maxAuto)] : []),
    ...(settings.stakedAccountId !== undefined ? [entityRef(15, settings.stakedAccountId)] : []),
    ...(settings.stakedNodeId !== undefined ? [int(16, settings.stakedNodeId)] : []),
    ...(settings.declineReward ? [int(17, true)] : []),
  ]);
  ledger.submit(ts, {
    payer: TREASURY,
    memo: '',
    type: TransactionType.CRYPTOCREATEACCOUNT,
    data,
    receipt: [entityRef(2, id)],
    transfers: [
      [TREASURY, -initialBalance],
      [id, initialBalance],
    ],
    entityId: id,
    initialBalance,
    // the create's own transfer then brings the balance to the initial balance
    apply: () => ledger.createEntity(id, ts, accountFields(ts, key, publicKey, memo, maxAuto, settings)),
  });
  return id;
}

function accountFields(ts: bigint, key: Buffer, publicKey: string, memo: string, maxAuto: number, settings: AccountSettings) {
  const staked = settings.stakedAccountId !== undefined || settings.stakedNodeId !== undefined;
  return {
    auto_renew_period: AUTO_RENEW_SECONDS,
    balance: 0n,
    balance_timestamp: ts,
    decline_reward: settings.declineReward ?? false,
    ethereum_nonce: 0n,
    key,
    max_automatic_token_associations: maxAuto,
    memo,
    public_key: publicKey,
    receiver_sig_required: settings.receiverSigRequired ?? false,
    // unstaked: the handler sets none (the column's default, -1)
    ...(staked ? { stake_period_start: ScenarioLedger.epochDay(ts) } : {}),
    staked_account_id: settings.stakedAccountId ?? null,
    staked_node_id: settings.stakedNodeId ?? -1n,
  };
}

/** A CryptoTransfer of `amount` from `from` to `to`, paid by `from`; with a staking reward paid to `from` when given. */
export function transfer(ledger: ScenarioLedger, from: bigint, to: bigint, amount: bigint, reward = 0n): void {
  const ts = ledger.nextTimestamp();
  ledger.submit(ts, {
    payer: from,
    memo: ledger.rng.chance(0.3) ? `transfer ${ledger.rng.uint32()}` : '',
    type: TransactionType.CRYPTOTRANSFER,
    data: transferList(1, [
      [from, -amount],
      [to, amount],
    ]),
    transfers: [
      [from, -amount],
      [to, amount],
      ...(reward > 0n
        ? ([
            [STAKING_REWARD_ACCOUNT, -reward],
            [from, reward],
          ] as [bigint, bigint][])
        : []),
    ],
    stakingRewards: reward > 0n ? [[from, reward]] : [],
    entityId: null,
  });
}

/**
 * A FileUpdate {fileID 1, contents 4} of the exchange rate file 0.0.112 by 0.0.57, an
 * ExchangeRateSet {currentRate 1, nextRate 2} of ExchangeRate {hbarEquiv 1, centEquiv 2,
 * expirationTime 3}: the importer keeps its contents in `file_data`.
 */
function exchangeRateUpdate(ledger: ScenarioLedger): void {
  const ts = ledger.nextTimestamp();
  const hour = (ts / 3_600_000_000_000n + 1n) * 3_600n;
  const rate = (field: number, cents: number, expiry: bigint) => message(field, int(1, 30_000), int(2, cents), message(3, int(1, expiry)));
  const contents = Buffer.concat([
    rate(1, ledger.rng.between(200_000, 400_000), hour),
    rate(2, ledger.rng.between(200_000, 400_000), hour + 3_600n),
  ]);
  const file = encodeEntityId(0n, 0n, 112n);
  ledger.submit(ts, {
    payer: encodeEntityId(0n, 0n, 57n),
    memo: '',
    type: TransactionType.FILEUPDATE,
    data: Buffer.concat([entityRef(1, file), bytes(4, contents)]),
    entityId: file,
    fileData: contents,
    // the update handler writes a version of the file even though the stream never created it
    apply: () => ledger.updateOrInsertEntity(file, ts, { type: 'FILE', deleted: false }),
  });
}

/** A CryptoTransfer refused for want of balance: its record holds the fees only. */
function failedTransfer(ledger: ScenarioLedger, from: bigint, to: bigint): void {
  const amount = 1_000_000_000_000_000n;
  ledger.submit(ledger.nextTimestamp(), {
    payer: from,
    memo: 'too much',
    type: TransactionType.CRYPTOTRANSFER,
    data: transferList(1, [
      [from, -amount],
      [to, amount],
    ]),
    result: INSUFFICIENT_ACCOUNT_BALANCE,
    entityId: null,
  });
}

/** Genesis transfers (one in eight refused) and consensus messages: rows in the transaction tables only. */
export function transfersSection(ledger: ScenarioLedger, count: number): void {
  const topic = encodeEntityId(0n, 0n, 41_001n);
  let sequence = 0n;
  for (let i = 0; i < count; i++) {
    if (i % 4 === 3) {
      const ts = ledger.nextTimestamp();
      const text = Buffer.from(`scenario message ${++sequence}`);
      ledger.submit(ts, {
        payer: TREASURY,
        memo: '',
        type: TransactionType.CONSENSUSSUBMITMESSAGE,
        data: Buffer.concat([entityRef(1, topic), bytes(2, text)]),
        receipt: [int(7, sequence), bytes(8, ledger.rng.bytes(48)), int(9, 3)],
        entityId: topic,
      });
    } else if (i === 5) {
      exchangeRateUpdate(ledger);
    } else if (i % 8 === 6) {
      failedTransfer(ledger, ledger.rng.pick(GENESIS_ACCOUNTS), TREASURY);
    } else {
      const from = ledger.rng.pick(GENESIS_ACCOUNTS);
      const to = ledger.rng.pick(GENESIS_ACCOUNTS.filter((a) => a !== from));
      transfer(ledger, from, to, BigInt(ledger.rng.between(1, 100_000_000)));
    }
  }
}

/**
 * Accounts with every setting, updates of each, transfers between them, deletions. CryptoUpdate:
 * accountIDToUpdate 2, key 3, expirationTime 9, receiverSigRequiredWrapper 13, memo 14,
 * max_automatic_token_associations 15, staked_account_id 16, staked_node_id 17, decline_reward 18.
 */
export function cryptoSection(ledger: ScenarioLedger, accounts: number): void {
  const ids: bigint[] = [];
  for (let i = 0; i < accounts; i++) {
    const settings: AccountSettings = { memo: i % 2 === 0 ? `scenario account ${i}` : '' };
    if (i % 3 === 1) settings.stakedNodeId = BigInt(i % 4);
    if (i % 3 === 2 && ids.length > 0) settings.stakedAccountId = ids[0]!;
    if (i % 4 === 3) settings.declineReward = true;
    if (i % 5 === 4) settings.receiverSigRequired = true;
    if (i % 2 === 1) settings.maxAutomaticAssociations = 10 + i;
    ids.push(createAccount(ledger, settings));
  }
  failedCreate(ledger);
  for (let i = 0; i < ids.length * 2; i++) {
    const from = ids[i % ids.length]!;
    const to = ids[(i * 7 + 1) % ids.length]!;
    if (from === to) continue;
    transfer(ledger, from, to, BigInt(ledger.rng.between(1, 500_000)), i === 3 ? 12_345n : 0n);
  }
  for (const [n, id] of ids.entries()) {
    if (n % 2 === 0) updateAccount(ledger, id, n);
  }
  // delete the last two, their balance to the first
  for (const id of ids.slice(-2)) deleteAccount(ledger, id, ids[0]!);
}

/** A CryptoCreate refused: no account in its receipt, none created, its initial balance still in its row. */
function failedCreate(ledger: ScenarioLedger): void {
  const { key } = newKey(ledger);
  const initialBalance = 1_000_000_000_000_000n;
  ledger.submit(ledger.nextTimestamp(), {
    payer: TREASURY,
    memo: '',
    type: TransactionType.CRYPTOCREATEACCOUNT,
    data: Buffer.concat([message(1, key), int(2, initialBalance), duration(9, AUTO_RENEW_SECONDS)]),
    result: INSUFFICIENT_ACCOUNT_BALANCE,
    entityId: null,
    initialBalance,
  });
}

/** One CryptoUpdate of `id`, paid by itself; what it sets depends on `variant`. */
export function updateAccount(ledger: ScenarioLedger, id: bigint, variant: number): void {
  const ts = ledger.nextTimestamp();
  const fields: Record<string, unknown> = {};
  const parts: Buffer[] = [entityRef(2, id)];
  if (variant % 4 === 0) {
    const { key, publicKey } = newKey(ledger);
    parts.push(message(3, key));
    fields.key = key;
    fields.public_key = publicKey;
  }
  if (variant % 3 === 0) {
    const memo = `updated ${variant}`;
    parts.push(wrapped(14, string(1, memo)));
    fields.memo = memo;
  }
  if (variant % 4 === 2) {
    const expiry = ts + 90n * 86_400_000_000_000n;
    parts.push(timestamp(9, expiry));
    fields.expiration_timestamp = expiry;
    parts.push(wrapped(13, int(1, true)));
    fields.receiver_sig_required = true;
    parts.push(wrapped(15, int(1, 5)));
    fields.max_automatic_token_associations = 5;
  }
  // staking: to a node (clearing a staked account), and decline reward; a new stake period starts
  parts.push(int(17, BigInt(variant % 3)));
  parts.push(wrapped(18, int(1, variant % 2 === 0)));
  fields.staked_node_id = BigInt(variant % 3);
  fields.staked_account_id = 0n;
  fields.decline_reward = variant % 2 === 0;
  fields.stake_period_start = ScenarioLedger.epochDay(ts);
  ledger.submit(ts, {
    payer: id,
    memo: '',
    type: TransactionType.CRYPTOUPDATEACCOUNT,
    data: Buffer.concat(parts),
    entityId: id,
    apply: () => ledger.updateEntity(id, ts, { ...fields, deleted: false }),
  });
}

/** CryptoDelete {transferAccountID 1, deleteAccountID 2}: the balance goes to the obtainer, which the importer keeps. */
export function deleteAccount(ledger: ScenarioLedger, id: bigint, obtainer: bigint): void {
  const ts = ledger.nextTimestamp();
  ledger.submit(ts, {
    payer: id,
    memo: '',
    type: TransactionType.CRYPTODELETE,
    data: Buffer.concat([entityRef(1, obtainer), entityRef(2, id)]),
    entityId: id,
    // the fees come first, then what is left goes to the obtainer
    drain: { from: id, to: obtainer },
    apply: () => ledger.updateEntity(id, ts, { deleted: true, obtainer_id: obtainer }),
  });
}
