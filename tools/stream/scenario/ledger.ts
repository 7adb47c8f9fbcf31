/**
 * The round-trip scenario's model of the ledger: each submitted transaction becomes a stream item
 * (its Transaction and TransactionRecord) and, independently, the rows the mirror node's importer
 * writes for it. The per-transaction rows (`transaction`, `crypto_transfer`, `token_transfer`,
 * `staking_reward_transfer`, `file_data`) come from the scenario's own values; the state (`entity` and its
 * history, `token`, `token_account`, `nft`) is kept here by the importer's rules, which the
 * sections apply explicitly (create, update, delete, association, mint…). Nothing here calls the
 * service's ingester.
 *
 * The importer's rules this model follows, beyond the ones each section states:
 * - a create inserts a version `[ts,)` with the column defaults for what the body leaves unset
 *   (staked_node_id and stake_period_start -1, decline_reward false, ethereum_nonce 0 on accounts);
 * - an update or delete closes the current version into the history table (`[lower, ts)`) and
 *   opens a new one with the changed columns merged over the old;
 * - every hbar transfer adds to `entity.balance` and sets `balance_timestamp` without a new
 *   version, for accounts (and contracts) the database holds; an account the stream never created
 *   (genesis accounts: the payer 0.0.2, nodes, 0.0.98, 0.0.800) gets no row from its transfers;
 * - every token transfer adds to `token_account.balance` (fungible: the amount; NFTs: one per
 *   serial received or sent) and sets `balance_timestamp`, without a new version;
 * - the importer writes each record file as one batch (SqlEntityListener flushes at the file's
 *   end; the ledger splits its items into files as the stream is written, `itemsPerFile`): the
 *   version the database held when the file began is closed into the history as the database held
 *   it (upsert_history's `existing_history` copies the stored `e_` columns), so with the balance,
 *   balance timestamp and stake period start of the end of the previous file; a version the file
 *   itself opened keeps, when the file closes it, the balance it had then (the merged changes carry
 *   it);
 * - a staking reward paid to an account opens a new version `[ts,)` with stake_period_start the day
 *   before the payout, unless the file already set the account's stake period start to that day or
 *   later (SqlEntityListener.onStakingRewardTransfer: it compares with the file's batch, not the
 *   database), after the transaction's transfers;
 * - an update of an entity the stream never created (a FileUpdate of a system file) still writes a
 *   row: upsert_history inserts the open version whether or not the database held one;
 * - no `account_balance` or `token_balance` snapshot: without balance files the importer takes its
 *   first one a delay after the first record file (then at its minimum frequency), longer than
 *   the scenario's few minutes of consensus time.
 */
import { encodeEntityId } from '../../../src/domain/entityId.js';
import type { ColumnValues } from '../../../src/ledgerSetup/insert.js';
import { Rng } from '../../generate/random.js';
import { type EncodedItem, encodeItem, type ItemSpec, SUCCESS, type TokenMoves } from './hapi.js';

export const TREASURY = 2n;
export const FEE_COLLECTOR = 98n;
export const STAKING_REWARD_ACCOUNT = 800n;
export const FIRST_NODE = 3n;
const NANOS_PER_DAY = 86_400_000_000_000n;
/** time between two top-level transactions, by default */
export const STEP_NS = 40_000_000n;

export const TransactionType = {
  CRYPTOCREATEACCOUNT: 11,
  CRYPTODELETE: 12,
  CRYPTOTRANSFER: 14,
  CRYPTOUPDATEACCOUNT: 15,
  FILEUPDATE: 19,
  CONSENSUSSUBMITMESSAGE: 27,
  TOKENCREATION: 29,
  TOKENMINT: 37,
  TOKENBURN: 38,
  TOKENASSOCIATE: 40,
  CRYPTOAPPROVEALLOWANCE: 48,
} as const;

/** token_account freeze_status / kyc_status */
export const FreezeStatus = { NOT_APPLICABLE: 0, FROZEN: 1, UNFROZEN: 2 } as const;
export const KycStatus = { NOT_APPLICABLE: 0, GRANTED: 1, REVOKED: 2 } as const;

/** One submitted transaction: the top-level item and the children the network wrote with it. */
export type ItemGroup = EncodedItem[];

export interface Submission extends Omit<ItemSpec, 'consensusTimestamp' | 'validStart' | 'node' | 'maxFee' | 'fee' | 'transfers'> {
  /** hbar transfers besides the fees */
  transfers?: [bigint, bigint][];
  /** the `transaction.entity_id` the importer gives this type */
  entityId: bigint | null;
  initialBalance?: bigint;
  /** a deletion: what the account holds after the fees goes to `to` */
  drain?: { from: bigint; to: bigint };
  /** a system file's new contents (FileUpdate of 0.0.101, 0.0.102, 0.0.111, 0.0.112), kept in `file_data` */
  fileData?: Buffer;
  /** the state change of the transaction itself, applied before its transfers as the importer does */
  apply?: () => void;
}

const ENTITY_DEFAULTS: ColumnValues = {
  alias: null,
  auto_renew_account_id: null,
  auto_renew_period: null,
  balance: null,
  balance_timestamp: null,
  created_timestamp: null,
  decline_reward: false,
  deleted: false,
  delegation_address: null,
  ethereum_nonce: null,
  evm_address: null,
  expiration_timestamp: null,
  key: null,
  max_automatic_token_associations: null,
  memo: '',
  obtainer_id: null,
  permanent_removal: null,
  proxy_account_id: null,
  public_key: null,
  receiver_sig_required: null,
  stake_period_start: -1n,
  staked_account_id: null,
  staked_node_id: -1n,
  type: 'ACCOUNT',
};

const lowerOf = (range: unknown) => BigInt(/^\[(\d+),/.exec(String(range))![1]!);

/** What the importer's batch for the record file being written holds of one entity. */
interface FileChange {
  /** the row as the database held it when the file began (null: none) */
  stored: ColumnValues | null;
  /** the stake period start the file's changes set (null: none set) */
  stakePeriodStart: bigint | null;
}

export class ScenarioLedger {
  readonly rng: Rng;
  private now: bigint;
  /** the record files' items: whole groups, a file closed once it holds `itemsPerFile` items */
  private readonly files: EncodedItem[][] = [];
  private openFile: EncodedItem[] = [];
  private readonly fileChanges = new Map<bigint, FileChange>();
  private readonly rows = {
    transaction: [] as ColumnValues[],
    crypto_transfer: [] as ColumnValues[],
    token_transfer: [] as ColumnValues[],
    staking_reward_transfer: [] as ColumnValues[],
    file_data: [] as ColumnValues[],
  };
  private readonly entities = new Map<bigint, ColumnValues>();
  private readonly entityHistory: ColumnValues[] = [];
  private readonly tokens = new Map<bigint, ColumnValues>();
  private readonly tokenAccounts = new Map<string, ColumnValues>();
  private readonly nfts = new Map<string, ColumnValues>();
  private nextNum: bigint;
  private signatures = 0;
  /** the section being played, which owns the entities created meanwhile */
  section = '';
  private readonly owners = new Map<bigint, string>();

  constructor(
    seed: number,
    startNanos: bigint,
    readonly nodes: bigint[],
    private readonly itemsPerFile: number,
    firstNum = 1001n,
    private readonly stepNs = STEP_NS,
  ) {
    this.rng = new Rng(seed, 31);
    this.now = startNanos;
    this.nextNum = firstNum;
  }

  /** the next entity number the network assigns (owned by the section being played) */
  newId(): bigint {
    const id = encodeEntityId(0n, 0n, this.nextNum++);
    this.owners.set(id, this.section);
    return id;
  }

  /** The section that created an entity; null for one the stream never created (genesis accounts). */
  ownerOf(id: bigint): string | null {
    return this.owners.get(id) ?? null;
  }

  /** the consensus time the next top-level transaction gets */
  nextTimestamp(): bigint {
    this.now += this.stepNs + BigInt(this.rng.between(1, 999));
    return this.now;
  }

  /** the day number (since the epoch) of a consensus time, as stake_period_start counts */
  static epochDay(ns: bigint): bigint {
    return ns / NANOS_PER_DAY;
  }

  /**
   * Submits one transaction at `ts`: the payer pays a node and network fee, the item is added, and
   * its per-transaction rows and balance effects are recorded. Children (`children`) are items the
   * network wrote with it, with their own rows, given as already built submissions.
   */
  submit(ts: bigint, s: Submission, children: { ts: bigint; submission: Submission; before: boolean }[] = []): void {
    const group: ItemGroup = [];
    // children share their parent's transaction id (with a nonce)
    const parentValidStart = ts - BigInt(this.rng.between(1_000_000, 3_000_000_000));
    const built = (at: bigint, sub: Submission, child: boolean) => {
      const node = this.rng.pick(this.nodes);
      const nodeFee = child ? 0n : BigInt(this.rng.between(5_000, 9_000));
      const networkFee = child ? 0n : BigInt(this.rng.between(50_000, 90_000));
      const fee = nodeFee + networkFee;
      const own = [...(sub.transfers ?? [])];
      if (sub.drain) {
        const left = ((this.entities.get(sub.drain.from)?.balance as bigint | null) ?? 0n) - fee;
        own.push([sub.drain.from, -left], [sub.drain.to, left]);
      }
      const transfers: [bigint, bigint][] = child ? own : [[node, nodeFee], [FEE_COLLECTOR, networkFee], [sub.payer, -fee], ...own];
      const spec: ItemSpec = {
        ...sub,
        consensusTimestamp: at,
        node,
        validStart: parentValidStart,
        maxFee: fee + 100_000n,
        fee,
        transfers,
      };
      const item = encodeItem(spec, this.signatures++);
      this.record(spec, sub, item);
      return item;
    };
    // preceding children (automatic creations, completions) take effect before their parent, the others after it
    for (const c of children.filter((c) => c.before)) group.push(built(c.ts, c.submission, true));
    group.push(built(ts, s, false));
    for (const c of children.filter((c) => !c.before)) group.push(built(c.ts, c.submission, true));
    group.sort((a, b) => (a.consensusTimestamp < b.consensusTimestamp ? -1 : a.consensusTimestamp > b.consensusTimestamp ? 1 : 0));
    // a parent and its children are never split
    this.openFile.push(...group);
    if (this.openFile.length >= this.itemsPerFile) {
      this.files.push(this.openFile);
      this.openFile = [];
      this.fileChanges.clear();
    }
  }

  /** The record files' items, in order. */
  recordFiles(): EncodedItem[][] {
    return this.openFile.length > 0 ? [...this.files, this.openFile] : [...this.files];
  }

  /** The entity as the importer's batch of the current file holds it; recorded before the file first changes it. */
  private touch(id: bigint): FileChange {
    let change = this.fileChanges.get(id);
    if (!change) {
      const row = this.entities.get(id);
      change = { stored: row ? { ...row } : null, stakePeriodStart: null };
      this.fileChanges.set(id, change);
    }
    return change;
  }

  private record(spec: ItemSpec, sub: Submission, item: EncodedItem): void {
    const ts = spec.consensusTimestamp;
    // ids as JSON numbers, exact (JSON.stringify has no bigints)
    const nftTransfers = (spec.tokenTransfers ?? []).flatMap((t) =>
      (t.nfts ?? []).map(
        (n) =>
          `{"is_approval":${n.isApproval ?? false},"receiver_account_id":${n.receiver ?? 'null'},` +
          `"sender_account_id":${n.sender ?? 'null'},"serial_number":${n.serial},"token_id":${t.token}}`,
      ),
    );
    this.rows.transaction.push({
      consensus_timestamp: ts,
      type: spec.type,
      result: spec.result ?? SUCCESS,
      payer_account_id: spec.payer,
      valid_start_ns: spec.validStart,
      valid_duration_seconds: 120n,
      node_account_id: spec.node,
      entity_id: sub.entityId,
      initial_balance: sub.initialBalance ?? 0n,
      max_fee: spec.maxFee,
      charged_tx_fee: spec.fee,
      memo: Buffer.from(spec.memo, 'utf8'),
      transaction_hash: item.hash,
      scheduled: false,
      nonce: spec.nonce ?? 0,
      parent_consensus_timestamp: spec.parent ?? null,
      // the importer's nft_transfer: one object per NFT moved, in the record's order
      nft_transfer: nftTransfers.length === 0 ? null : `[${nftTransfers.join(',')}]`,
    });
    // a failed transaction changes no state; its fees are charged all the same
    if ((spec.result ?? SUCCESS) === SUCCESS) {
      if (sub.fileData)
        this.rows.file_data.push({
          consensus_timestamp: ts,
          entity_id: sub.entityId,
          file_data: sub.fileData,
          transaction_type: spec.type,
        });
      sub.apply?.();
    }
    for (const [account, amount] of spec.transfers) {
      this.rows.crypto_transfer.push({
        consensus_timestamp: ts,
        entity_id: account,
        amount,
        payer_account_id: spec.payer,
        is_approval: false,
      });
      this.addBalance(account, amount, ts);
    }
    for (const moves of spec.tokenTransfers ?? []) this.recordTokenMoves(moves, spec.payer, ts);
    for (const [account, amount] of spec.stakingRewards ?? []) {
      this.rows.staking_reward_transfer.push({ consensus_timestamp: ts, account_id: account, amount, payer_account_id: spec.payer });
      this.stakingRewardPaid(account, ts);
    }
  }

  /** The stake period restarts the day before the payout, so that the account earns for the day it was paid on. */
  private stakingRewardPaid(account: bigint, ts: bigint): void {
    const start = ScenarioLedger.epochDay(ts) - 1n;
    const set = this.fileChanges.get(account)?.stakePeriodStart ?? null;
    if (set !== null && set >= start) return;
    this.updateEntity(account, ts, { stake_period_start: start });
  }

  private recordTokenMoves(moves: TokenMoves, payer: bigint, ts: bigint): void {
    for (const [account, amount] of moves.amounts ?? []) {
      this.rows.token_transfer.push({
        consensus_timestamp: ts,
        token_id: moves.token,
        account_id: account,
        amount,
        payer_account_id: payer,
        is_approval: false,
      });
      this.addTokenBalance(account, moves.token, amount, ts);
    }
    for (const n of moves.nfts ?? []) {
      if (n.sender !== null) this.addTokenBalance(n.sender, moves.token, -1n, ts);
      if (n.receiver !== null) this.addTokenBalance(n.receiver, moves.token, 1n, ts);
    }
  }

  private addBalance(account: bigint, amount: bigint, ts: bigint): void {
    this.touch(account);
    const e = this.entities.get(account);
    if (!e || (e.type !== 'ACCOUNT' && e.type !== 'CONTRACT')) return;
    e.balance = ((e.balance as bigint | null) ?? 0n) + amount;
    e.balance_timestamp = ts;
  }

  private addTokenBalance(account: bigint, token: bigint, amount: bigint, ts: bigint): void {
    const ta = this.tokenAccounts.get(`${account}/${token}`);
    if (!ta) return;
    ta.balance = (ta.balance as bigint) + amount;
    ta.balance_timestamp = ts;
  }

  // --- state, by the importer's rules -------------------------------------------------------

  /** A new entity version `[ts,)` with the defaults, then `fields`. */
  createEntity(id: bigint, ts: bigint, fields: ColumnValues): void {
    this.insertEntity(id, ts, { created_timestamp: ts, ...fields });
  }

  private insertEntity(id: bigint, ts: bigint, fields: ColumnValues): void {
    const change = this.touch(id);
    if (fields.stake_period_start !== undefined) change.stakePeriodStart = fields.stake_period_start as bigint;
    const num = id & ((1n << 38n) - 1n);
    this.entities.set(id, {
      ...ENTITY_DEFAULTS,
      id,
      shard: 0n,
      realm: 0n,
      num,
      created_timestamp: null,
      timestamp_range: `[${ts},)`,
      ...fields,
    });
  }

  /**
   * Closes the current version at `ts` into the history and opens one with `fields` merged over it.
   * The version the database held when the file began goes to the history as it was stored then.
   */
  updateEntity(id: bigint, ts: bigint, fields: ColumnValues): void {
    const current = this.entities.get(id);
    if (!current) throw new Error(`scenario: no entity ${id} to update`);
    const change = this.touch(id);
    const closing = change.stored?.timestamp_range === current.timestamp_range ? change.stored! : current;
    this.entityHistory.push({ ...closing, timestamp_range: `[${lowerOf(current.timestamp_range)},${ts})` });
    this.entities.set(id, { ...current, ...fields, timestamp_range: `[${ts},)` });
    if (fields.stake_period_start !== undefined) change.stakePeriodStart = fields.stake_period_start as bigint;
  }

  /** An update of an entity the stream may never have created: without a row, one `[ts,)` of `fields` over the defaults. */
  updateOrInsertEntity(id: bigint, ts: bigint, fields: ColumnValues): void {
    if (this.entities.has(id)) this.updateEntity(id, ts, fields);
    else this.insertEntity(id, ts, fields);
  }

  createToken(row: ColumnValues): void {
    this.tokens.set(row.token_id as bigint, row);
  }

  token(id: bigint): ColumnValues {
    const t = this.tokens.get(id);
    if (!t) throw new Error(`scenario: no token ${id}`);
    return t;
  }

  /** An association `[ts,)` of `account` with `token`, with a zero balance. */
  associate(account: bigint, token: bigint, ts: bigint, freezeStatus: number, kycStatus: number): void {
    this.tokenAccounts.set(`${account}/${token}`, {
      account_id: account,
      associated: true,
      automatic_association: false,
      balance: 0n,
      balance_timestamp: ts,
      created_timestamp: ts,
      freeze_status: freezeStatus,
      kyc_status: kycStatus,
      timestamp_range: `[${ts},)`,
      token_id: token,
    });
  }

  /** Sets the current version of an NFT (a mint, a transfer, an approval or a burn opens a new one). */
  setNft(token: bigint, serial: bigint, ts: bigint, fields: ColumnValues): void {
    const key = `${token}/${serial}`;
    const current = this.nfts.get(key);
    this.nfts.set(key, { ...(current ?? {}), ...fields, token_id: token, serial_number: serial, timestamp_range: `[${ts},)` });
  }

  /** Sets each transaction row's `index`, its position in its record file. */
  assignIndexes(indexes: ReadonlyMap<bigint, number>): void {
    for (const row of this.rows.transaction) row.index = indexes.get(row.consensus_timestamp as bigint) ?? null;
  }

  /** Every expected row of the tables the scenario writes (record_file comes from the files written). */
  expectedRows() {
    return {
      transaction: this.rows.transaction,
      crypto_transfer: this.rows.crypto_transfer,
      token_transfer: this.rows.token_transfer,
      staking_reward_transfer: this.rows.staking_reward_transfer,
      file_data: this.rows.file_data,
      entity: [...this.entities.values()],
      entity_history: this.entityHistory,
      token: [...this.tokens.values()],
      token_account: [...this.tokenAccounts.values()],
      nft: [...this.nfts.values()],
    };
  }
}
