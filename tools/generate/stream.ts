/**
 * The window of the synthetic ledger, block by block: record files every ~2 s with their
 * transactions and everything a transaction leaves behind (transaction hash, crypto/token/NFT
 * transfers, staking rewards, entity transactions, contract results with logs, state changes,
 * Ethereum transactions and contract_transaction rows), entity versions on updates, and balance
 * snapshots at regular intervals (full in the first snapshot of a month, changed accounts after).
 */
import { bytea, byteaHex, NULL } from './copyText.js';
import { accountEntityRow } from './entities.js';
import { contractProfile } from './profiles.js';
import { mix32, Rng } from './random.js';
import { exchangeRateSet } from './systemFiles.js';
import { epochDay, epochSeconds, monthOf, nsText, recordFileName, BLOCK_INTERVAL_NS } from './time.js';
import type { Writers } from './tables.js';
import {
  EXCHANGE_RATE_FILE,
  FEE_COLLECTOR,
  FIRST_USER_ACCOUNT,
  HTS_SYSTEM_CONTRACT,
  HUBS,
  STAKING_REWARD_ACCOUNT,
  TREASURY,
  type World,
} from './world.js';

const TYPE = {
  CONTRACTCALL: 7,
  CONTRACTCREATEINSTANCE: 8,
  CRYPTOCREATEACCOUNT: 11,
  CRYPTOTRANSFER: 14,
  CRYPTOUPDATEACCOUNT: 15,
  FILECREATE: 17,
  FILEUPDATE: 19,
  CONSENSUSSUBMITMESSAGE: 27,
  TOKENMINT: 37,
  CRYPTOAPPROVEALLOWANCE: 48,
  ETHEREUMTRANSACTION: 50,
} as const;

const SUCCESS = 22;
const CONTRACT_REVERT_EXECUTED = 33;
/** INVALID_SIGNATURE, INSUFFICIENT_PAYER_BALANCE, DUPLICATE_TRANSACTION, INSUFFICIENT_ACCOUNT_BALANCE */
const FAILURES = [7, 10, 11, 28];
const FAILURE_RATE = 0.015;

const KIND = {
  hbarTransfer: 0,
  tokenTransfer: 1,
  nftTransfer: 2,
  topicMessage: 3,
  accountUpdate: 4,
  nftApproval: 5,
  accountCreate: 6,
  contractCreate: 7,
  nftMint: 8,
  contractCall: 9,
  ethereumCall: 10,
  exchangeRateUpdate: 11,
} as const;

/** Shares of the kinds that are not scheduled by quota (contract calls, creations and mints are). */
const FILLER_WEIGHTS = [0.6, 0.13, 0.045, 0.16, 0.005, 0.005];
const FILLER_TOTAL = FILLER_WEIGHTS.reduce((a, b) => a + b, 0);

const SELECTORS = ['a9059cbb', '095ea7b3', '38ed1739', '40c10f19', 'd0e30db0', 'ac9650d8', '23b872dd'];
const EVENTS = [
  'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', // Transfer
  '8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925', // Approval
  'd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822', // Swap
  '1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1', // Sync
];
const GAS_LIMITS = [50_000, 100_000, 300_000, 400_000, 1_000_000, 3_000_000, 15_000_000];
const TINYBARS_PER_GAS = 71;
const WEIBARS_PER_TINYBAR = 10_000_000_000n;
/** 710 gwei, the network's gas price in weibars */
const GAS_PRICE_WEIBARS = 'a54f4c3c00';
const PRIORITY_FEE_WEIBARS = '3b9aca00';
const BLOOM_BYTES = 256;
const ZERO_WORD_PREFIX = '0'.repeat(48);

interface TxSpec {
  type: number;
  result: number;
  payer: number;
  fee: number;
  entity?: number;
  nonce?: number;
  parent?: number;
  validStart?: number;
  node?: number;
  nftTransfers?: string;
  memo?: boolean;
}

interface Emitted {
  hashHex: string;
  validStart: number;
  node: number;
  index: number;
}

/** Transactions per block: skewed (quiet blocks and bursts) but adding up to exactly the target. */
class BlockSizes {
  private readonly rng: Rng;
  private readonly scale: number;
  private cumulative = 0;
  private produced = 0;
  private block = 0;

  constructor(
    seed: number,
    private readonly blocks: number,
    private readonly transactions: number,
  ) {
    const probe = new Rng(seed, 3);
    let sum = 0;
    for (let b = 0; b < blocks; b++) sum += BlockSizes.weight(probe);
    this.rng = new Rng(seed, 3);
    this.scale = (transactions - blocks) / sum;
  }

  private static weight(rng: Rng): number {
    const w = 0.2 + rng.exponential(0.8);
    return rng.chance(0.01) ? w * 6 : w;
  }

  next(): number {
    const w = BlockSizes.weight(this.rng);
    this.block++;
    if (this.block === this.blocks) return Math.max(1, this.transactions - this.produced);
    const before = Math.floor(this.cumulative);
    this.cumulative += w * this.scale;
    const n = 1 + Math.floor(this.cumulative) - before;
    this.produced += n;
    return n;
  }
}

function quota(total: number, block: number, blocks: number): number {
  return Math.floor((total * (block + 1)) / blocks);
}

export class LedgerStream {
  private readonly rng: Rng;
  private off = -1;
  private index = 0;
  private readonly parties = new Int32Array(64);
  private readonly amounts = new Float64Array(64);
  private partyCount = 0;
  private readonly hash = Buffer.alloc(48);
  private prevHash = '0'.repeat(96);
  private blockGas = 0;
  private readonly blockBloom = new Uint8Array(BLOOM_BYTES);
  private blockHasBloom = false;
  private lastSnapshotMonth = -1;
  private accountsScheduled = 0;
  private contractsScheduled = 0;
  private contractTxsScheduled = 0;
  private mintsDone = 0;
  readonly counts = { contractResults: 0, topLevelTransactions: 0, childTransactions: 0, snapshots: 0, fullSnapshots: 0 };

  /** offset of the first consensus timestamp of the window */
  firstTimestamp = 0;

  constructor(
    private readonly w: World,
    private readonly out: Writers,
    private readonly chainId: Buffer,
    private readonly flush: () => Promise<void>,
  ) {
    this.rng = new Rng(w.seed, 2);
  }

  /** Generates every block; `afterBlock` runs between blocks (flushing, progress). */
  async run(afterBlock: (block: number) => Promise<void>): Promise<void> {
    const { blocks, transactions, snapshots } = this.w.scale;
    const sizes = new BlockSizes(this.w.seed, blocks, transactions);
    let nextSnapshot = 0;
    for (let b = 0; b < blocks; b++) {
      const end = this.block(b, sizes.next());
      if (b === quota(blocks, nextSnapshot, snapshots) - 1) {
        await this.snapshot(end);
        nextSnapshot++;
      }
      await afterBlock(b);
    }
  }

  /** The offset of the last consensus timestamp written. */
  get lastTimestamp(): number {
    return this.off;
  }

  // ---- blocks -----------------------------------------------------------------------------

  private plan(b: number, size: number): number[] {
    const { w, rng } = this;
    const { blocks, contractResults } = w.scale;
    const kinds: number[] = [];
    if (b === Math.floor(blocks / 2)) kinds.push(KIND.exchangeRateUpdate);
    for (; this.accountsScheduled < quota(w.layout.newAccounts, b, blocks); this.accountsScheduled++) kinds.push(KIND.accountCreate);
    let creates = 0;
    for (; this.contractsScheduled < quota(w.layout.newContracts, b, blocks); this.contractsScheduled++, creates++) kinds.push(KIND.contractCreate);
    const contractTxs = Math.max(0, quota(contractResults, b, blocks) - this.contractTxsScheduled - creates);
    this.contractTxsScheduled += contractTxs + creates;
    for (let i = 0; i < contractTxs; i++) kinds.push(rng.chance(0.6) ? KIND.ethereumCall : KIND.contractCall);
    const mintsDue = quota(w.nftsToMint, b, blocks) - this.mintsDone;
    if (mintsDue > 0) kinds.push(KIND.nftMint);
    while (kinds.length < size) kinds.push(rng.weighted(FILLER_WEIGHTS, FILLER_TOTAL));
    return rng.shuffle(kinds);
  }

  /** One block; returns the offset of its last transaction (consensus_end). */
  private block(b: number, size: number): number {
    const { w, rng, out } = this;
    const kinds = this.plan(b, size);
    const start = b * BLOCK_INTERVAL_NS + rng.int(10_000_000);
    const spacing = (BLOCK_INTERVAL_NS * 0.9) / kinds.length;
    this.index = 0;
    this.blockGas = 0;
    this.blockHasBloom = false;
    this.blockBloom.fill(0);
    let first = -1;
    for (let i = 0; i < kinds.length; i++) {
      this.advanceTo(Math.floor(start + i * spacing + rng.float() * spacing * 0.5));
      if (first < 0) first = this.off;
      this.transaction(kinds[i]!, b);
    }
    const hash = rng.bytes(48).toString('hex');
    const fileHash = rng.bytes(48).toString('hex');
    out.recordFile.add(
      String(b),
      nsText(first),
      nsText(this.off),
      String(this.index),
      hash,
      this.prevHash,
      recordFileName(first),
      String(this.blockGas),
      this.blockHasBloom ? bytea(this.blockBloom) : byteaHex(''),
      String(2_000 + this.index * 450 + rng.int(400)),
      '0',
      fileHash,
      '0',
      '47',
      '0',
      String(epochSeconds(this.off) + 2),
      String(epochSeconds(this.off) + 3),
      String(rng.int(w.layout.nodes)),
      this.blockGas > 0 ? '1' : '0',
      '0',
      '47',
      '0',
      '6',
    );
    this.prevHash = hash;
    if (b === 0) this.firstTimestamp = first;
    return this.off;
  }

  /** Moves the clock to `planned`, or 1 µs past the last timestamp when that is later. */
  private advanceTo(planned: number): number {
    this.off = Math.max(this.off + 1_000, planned);
    return this.off;
  }

  private transaction(kind: number, block: number): void {
    const fail = kind <= KIND.nftApproval && this.rng.chance(FAILURE_RATE);
    switch (kind) {
      case KIND.hbarTransfer:
        return this.hbarTransfer(fail);
      case KIND.tokenTransfer:
        return this.tokenTransfer(fail);
      case KIND.nftTransfer:
        return this.nftTransfer(fail);
      case KIND.topicMessage:
        return this.topicMessage(fail);
      case KIND.accountUpdate:
        return this.accountUpdate(fail);
      case KIND.nftApproval:
        return this.nftApproval(fail);
      case KIND.accountCreate:
        return this.accountCreate();
      case KIND.nftMint:
        return this.nftMints(quota(this.w.nftsToMint, block, this.w.scale.blocks) - this.mintsDone);
      case KIND.contractCreate:
        return this.contractTransaction(this.rng.chance(0.3) ? 'ethereumCreate' : 'create');
      case KIND.contractCall:
        return this.contractTransaction('call');
      case KIND.ethereumCall:
        return this.contractTransaction('ethereum');
      case KIND.exchangeRateUpdate:
        return this.exchangeRateUpdate();
      default:
        throw new Error(`unknown transaction kind ${kind}`);
    }
  }

  // ---- transfers and the transaction row --------------------------------------------------

  private credit(num: number, amount: number): void {
    for (let i = 0; i < this.partyCount; i++) {
      if (this.parties[i] === num) {
        this.amounts[i]! += amount;
        return;
      }
    }
    this.parties[this.partyCount] = num;
    this.amounts[this.partyCount++] = amount;
  }

  private result(fail: boolean): number {
    return fail ? this.rng.pick(FAILURES) : SUCCESS;
  }

  /**
   * Writes the transaction (and its transaction_hash row), charges the fee to the payer (node +
   * fee collector) and writes the crypto transfers credited since the last call, paying staking
   * rewards to parties staked to a node that have not had one today.
   */
  private emit(s: TxSpec): Emitted {
    const { w, rng, out } = this;
    const ts = this.off;
    const tsText = nsText(ts);
    const payerText = w.idText(s.payer);
    const node = s.node ?? rng.int(w.layout.nodes);
    const validStart = s.validStart ?? ts - 1e9 - rng.int(9e9);
    if (s.fee > 0) {
      const nodeFee = Math.floor(s.fee * 0.1);
      this.credit(s.payer, -s.fee);
      this.credit(w.layout.nodeAccount(node), nodeFee);
      this.credit(FEE_COLLECTOR, s.fee - nodeFee);
    }
    rng.fill(this.hash);
    const hashHex = this.hash.toString('hex');
    const memo = s.memo !== false && rng.chance(0.08) ? bytea(Buffer.from(rng.pick(['payment ', 'invoice ', 'ref ', 'withdrawal ']) + rng.int(1e6))) : NULL;
    const index = this.index++;
    if (s.nonce) this.counts.childTransactions++;
    else this.counts.topLevelTransactions++;
    out.transaction.add(
      tsText,
      String(s.type),
      String(s.result),
      payerText,
      nsText(validStart),
      '120',
      w.idText(w.layout.nodeAccount(node)),
      s.entity ? w.idText(s.entity) : NULL,
      '0',
      String(s.type === TYPE.ETHEREUMTRANSACTION || s.type === TYPE.CONTRACTCALL ? 500_000_000 : 200_000_000),
      String(s.fee),
      memo,
      byteaHex(hashHex),
      'f',
      String(s.nonce ?? 0),
      s.parent === undefined ? NULL : nsText(s.parent),
      String(index),
      s.nftTransfers ?? NULL,
    );
    out.transactionHash.add(tsText, byteaHex(hashHex.slice(0, 64)), byteaHex(hashHex.slice(64)), payerText);
    this.commitTransfers(ts, tsText, payerText);
    return { hashHex, validStart, node, index };
  }

  private commitTransfers(ts: number, tsText: string, payerText: string): void {
    const { w, out } = this;
    const today = epochDay(ts);
    const parties = this.partyCount;
    for (let i = 0; i < parties; i++) {
      const num = this.parties[i]!;
      if (w.stakedNode[num]! < 0 || w.declineReward[num] || w.lastRewardDay[num]! >= today || num < FIRST_USER_ACCOUNT) continue;
      w.lastRewardDay[num] = today;
      w.stakePeriodStart[num] = today;
      const reward = Number(w.balance[num]! / 20_000n);
      if (reward <= 0) continue;
      this.credit(num, reward);
      this.credit(STAKING_REWARD_ACCOUNT, -reward);
      out.stakingRewardTransfer.add(tsText, w.idText(num), String(reward), payerText);
    }
    for (let i = 0; i < this.partyCount; i++) {
      const amount = this.amounts[i]!;
      if (amount === 0) continue;
      const num = this.parties[i]!;
      out.cryptoTransfer.add(tsText, w.idText(num), String(amount), payerText, 'f');
      w.addBalance(num, amount, ts);
    }
    this.partyCount = 0;
  }

  private entityTransactions(entities: number[], payer: number, result: number, type: number): void {
    const tsText = nsText(this.off);
    const payerText = this.w.idText(payer);
    const seen: number[] = [payer];
    for (const e of entities) {
      if (seen.includes(e)) continue;
      seen.push(e);
      this.out.entityTransaction.add(tsText, this.w.idText(e), payerText, String(result), String(type));
    }
  }

  // ---- transaction kinds ------------------------------------------------------------------

  private hbarTransfer(fail: boolean): void {
    const { w, rng } = this;
    const r = rng.float();
    let payer: number;
    const receivers: number[] = [];
    if (r < 0.3) {
      payer = HUBS.exchange;
      receivers.push(w.pickOtherAccount(rng, payer));
    } else if (r < 0.45) {
      payer = w.pickOtherAccount(rng, HUBS.exchange);
      receivers.push(HUBS.exchange);
    } else {
      payer = w.pickAccount(rng);
      const count = rng.chance(0.05) ? 2 + rng.int(9) : 1;
      for (let i = 0; i < count; i++) receivers.push(w.pickOtherAccount(rng, payer));
    }
    if (!fail) {
      const budget = Number(w.balance[payer]!) * (0.0005 + 0.02 * rng.float());
      const each = Math.max(1, Math.floor(budget / receivers.length));
      for (const receiver of receivers) {
        this.credit(payer, -each);
        this.credit(receiver, each);
      }
    }
    this.emit({ type: TYPE.CRYPTOTRANSFER, result: this.result(fail), payer, fee: 80_000 + rng.int(10_000) + receivers.length * 5_000 });
  }

  private tokenTransfer(fail: boolean): void {
    const { w, rng } = this;
    const token = w.pickFungibleToken(rng);
    let from = -1;
    for (let i = 0; i < 3 && from < 0; i++) {
      const p = w.pickHolder(rng, token);
      if (w.pairBalance[p]! > 0) from = p;
    }
    let to = -1;
    for (let i = 0; i < 3 && to < 0 && from >= 0; i++) {
      const p = w.pickHolder(rng, token);
      if (p !== from) to = p;
    }
    if (from < 0 || to < 0) return this.hbarTransfer(fail);
    const payer = w.pairAccount[from]!;
    const result = this.result(fail);
    if (!fail) {
      const amount = Math.max(1, Math.floor(w.pairBalance[from]! * (0.01 + 0.3 * rng.float())));
      const tsText = nsText(this.off);
      const tokenText = w.idText(w.layout.tokenNum(token));
      const payerText = w.idText(payer);
      this.out.tokenTransfer.add(tsText, tokenText, payerText, String(-amount), payerText, 'f');
      this.out.tokenTransfer.add(tsText, tokenText, w.idText(w.pairAccount[to]!), String(amount), payerText, 'f');
      w.addPairBalance(from, -amount, this.off);
      w.addPairBalance(to, amount, this.off);
    }
    this.emit({ type: TYPE.CRYPTOTRANSFER, result, payer, fee: 100_000 + rng.int(20_000) });
  }

  /** A random minted, unburned NFT: [collection, serial, flat index], or null. */
  private pickNft(): [number, number, number] | null {
    const { w, rng } = this;
    const c = w.pickCollection(rng);
    const serial = 1 + rng.int(w.nftMinted[c]!);
    const flat = w.nftStart[c]! + serial - 1;
    return w.nftOwner[flat] ? [c, serial, flat] : null;
  }

  private nftTransfer(fail: boolean): void {
    const { w, rng } = this;
    const nft = this.pickNft();
    if (!nft) return this.hbarTransfer(fail);
    const [c, serial, flat] = nft;
    const token = w.layout.fungibleTokens + c;
    const owner = w.nftOwner[flat]!;
    let to = -1;
    for (let i = 0; i < 3 && to < 0; i++) {
      const p = w.pickHolder(rng, token);
      if (w.pairAccount[p] !== owner) to = p;
    }
    if (to < 0) return this.hbarTransfer(fail);
    const receiver = w.pairAccount[to]!;
    const spender = w.nftSpender[flat]!;
    const approval = spender !== 0;
    const payer = approval ? spender : owner;
    const tokenNum = w.layout.tokenNum(token);
    const result = this.result(fail);
    let nftTransfers: string | undefined;
    if (!fail) {
      nftTransfers = `[{"is_approval":${approval},"receiver_account_id":${w.idText(receiver)},"sender_account_id":${w.idText(owner)},"serial_number":${serial},"token_id":${w.idText(tokenNum)}}]`;
      w.addPairBalance(w.pairOf(owner, token), -1, this.off);
      w.addPairBalance(to, 1, this.off);
      w.nftOwner[flat] = receiver;
      w.nftSpender[flat] = 0;
      w.nftDelegating[flat] = 0;
      w.nftModified[flat] = this.off;
      this.entityTransactions([owner, receiver, tokenNum], payer, result, TYPE.CRYPTOTRANSFER);
    }
    this.emit({ type: TYPE.CRYPTOTRANSFER, result, payer, fee: 100_000 + rng.int(20_000), ...(nftTransfers ? { nftTransfers } : {}) });
  }

  private topicMessage(fail: boolean): void {
    const { w, rng } = this;
    const payer = rng.chance(0.7) ? HUBS.messenger : w.pickAccount(rng);
    this.emit({ type: TYPE.CONSENSUSSUBMITMESSAGE, result: this.result(fail), payer, entity: w.pickTopic(rng), fee: 8_000 + rng.int(2_000) });
  }

  private accountUpdate(fail: boolean): void {
    const { w, rng } = this;
    const num = w.pickAccount(rng);
    if (!fail && w.version[num]! < 255) {
      this.out.entityHistory.add(...accountEntityRow(w, num, this.off));
      w.version[num]!++;
      w.versionStart[num] = this.off;
      w.applyStaking(num, this.off);
    }
    this.emit({ type: TYPE.CRYPTOUPDATEACCOUNT, result: this.result(fail), payer: num, entity: num, fee: 1_500_000 + rng.int(100_000) });
  }

  private nftApproval(fail: boolean): void {
    const { w, rng } = this;
    const nft = this.pickNft();
    if (!nft) return this.hbarTransfer(fail);
    const [c, , flat] = nft;
    const owner = w.nftOwner[flat]!;
    const spender = rng.chance(0.5) && owner !== HUBS.marketplace ? HUBS.marketplace : w.pickOtherAccount(rng, owner);
    const tokenNum = w.layout.tokenNum(w.layout.fungibleTokens + c);
    const result = this.result(fail);
    if (!fail) {
      w.nftSpender[flat] = spender;
      w.nftDelegating[flat] = rng.chance(0.05) ? w.pickOtherAccount(rng, owner) : 0;
      w.nftModified[flat] = this.off;
      this.entityTransactions([spender, tokenNum], owner, result, TYPE.CRYPTOAPPROVEALLOWANCE);
    }
    this.emit({ type: TYPE.CRYPTOAPPROVEALLOWANCE, result, payer: owner, fee: 5_000_000 + rng.int(100_000) });
  }

  private accountCreate(): void {
    const { w, rng } = this;
    const payer = rng.chance(0.5) ? HUBS.exchange : w.pickAccount(rng);
    const num = FIRST_USER_ACCOUNT + w.existingAccounts;
    w.existingAccounts++;
    w.createdAt[num] = this.off;
    w.versionStart[num] = this.off;
    w.balanceAt[num] = this.off;
    w.applyStaking(num, this.off);
    const initial = Math.max(1_000_000, Math.floor(Number(w.balance[payer]!) * 0.001 * rng.float()));
    this.credit(payer, -initial);
    this.credit(num, initial);
    this.emit({ type: TYPE.CRYPTOCREATEACCOUNT, result: SUCCESS, payer, entity: num, fee: 5_000_000 + rng.int(500_000) });
  }

  /** Mints `count` serials, one TOKENMINT per collection with room left. */
  private nftMints(count: number): void {
    const { w, rng } = this;
    let left = Math.max(1, count);
    while (left > 0 && this.mintsDone < w.nftsToMint) {
      let c = w.pickCollection(rng);
      const room = (k: number) => w.nftStart[k + 1]! - w.nftStart[k]! - w.nftMinted[k]!;
      while (room(c) === 0) c = (c + 1) % w.layout.nftCollections;
      const k = Math.min(left, room(c), 1 + rng.int(10));
      const token = w.layout.fungibleTokens + c;
      const tokenNum = w.layout.tokenNum(token);
      const treasury = w.tokenTreasury[token]!;
      const parts: string[] = [];
      for (let i = 0; i < k; i++) {
        const serial = ++w.nftMinted[c]!;
        const flat = w.nftStart[c]! + serial - 1;
        w.nftOwner[flat] = treasury;
        w.nftCreated[flat] = this.off;
        w.nftModified[flat] = this.off;
        parts.push(`{"is_approval":false,"receiver_account_id":${w.idText(treasury)},"sender_account_id":null,"serial_number":${serial},"token_id":${w.idText(tokenNum)}}`);
      }
      w.addPairBalance(w.pairOf(treasury, token), k, this.off);
      this.mintsDone += k;
      left -= k;
      this.entityTransactions([tokenNum], treasury, SUCCESS, TYPE.TOKENMINT);
      this.emit({ type: TYPE.TOKENMINT, result: SUCCESS, payer: treasury, entity: tokenNum, fee: 2_000_000 + rng.int(100_000) * k, nftTransfers: `[${parts.join(',')}]` });
      if (left > 0) this.advanceTo(this.off + 1_000);
    }
  }

  private exchangeRateUpdate(): void {
    const seconds = epochSeconds(this.off);
    const content = exchangeRateSet(
      { hbarEquiv: 30_000, centEquiv: 330_000, expirationSeconds: seconds + 3_600 },
      { hbarEquiv: 30_000, centEquiv: 336_000, expirationSeconds: seconds + 7_200 },
    );
    this.out.fileData.add(nsText(this.off), this.w.idText(EXCHANGE_RATE_FILE), String(TYPE.FILEUPDATE), bytea(content));
    this.emit({ type: TYPE.FILEUPDATE, result: SUCCESS, payer: TREASURY, entity: EXCHANGE_RATE_FILE, fee: 0, memo: false });
  }

  // ---- contracts --------------------------------------------------------------------------

  private contractTransaction(mode: 'call' | 'ethereum' | 'create' | 'ethereumCreate'): void {
    const { w, rng, out } = this;
    const ethereum = mode === 'ethereum' || mode === 'ethereumCreate';
    const create = mode === 'create' || mode === 'ethereumCreate';
    const sender = ethereum ? w.pickEcdsaAccount(rng) : w.pickAccount(rng);
    const payer = ethereum && rng.chance(0.95) ? HUBS.relay : sender;
    const success = create || !rng.chance(0.08);
    const result = success ? SUCCESS : CONTRACT_REVERT_EXECUTED;

    let contract: number;
    if (create) {
      contract = w.layout.firstContract + w.existingContracts++;
      w.createdAt[contract] = this.off;
      w.versionStart[contract] = this.off;
      w.balanceAt[contract] = this.off;
      w.ethNonce[contract] = 1;
    } else {
      contract = w.pickContract(rng);
    }

    const parameters = create
      ? Buffer.concat([Buffer.from('60806040', 'hex'), rng.bytes(200 + rng.int(600))])
      : Buffer.concat([Buffer.from(rng.pick(SELECTORS), 'hex'), rng.bytes(32 * rng.int(5))]);
    let callDataFile = 0;
    if (ethereum && !create && rng.chance(0.01) && w.filesUsed < w.layout.maxFiles) {
      callDataFile = this.callDataFile(payer, parameters);
      this.advanceTo(this.off + 1_000);
    }

    const gasLimit = rng.pick(GAS_LIMITS);
    const gasUsed = Math.floor(gasLimit * (0.25 + 0.65 * rng.float()));
    const gasConsumed = Math.floor(gasUsed * (0.92 + 0.08 * rng.float()));
    const amount = success && !create && rng.chance(0.15) ? 1 + rng.int(1e9) : 0;
    if (amount > 0) {
      this.credit(sender, -amount);
      this.credit(contract, amount);
    }

    const involved = [contract, payer];
    const logs = success ? this.contractLogs(contract, payer, involved) : { bloom: null as Uint8Array | null };
    this.stateChanges(contract, payer, involved, success);

    const ethHash = ethereum ? rng.bytes(32).toString('hex') : '';
    const type = ethereum ? TYPE.ETHEREUMTRANSACTION : create ? TYPE.CONTRACTCREATEINSTANCE : TYPE.CONTRACTCALL;
    const emitted = this.emit({ type, result, payer, entity: contract, fee: gasUsed * TINYBARS_PER_GAS + 50_000, memo: false });
    const hash32 = ethereum ? ethHash : emitted.hashHex.slice(0, 64);
    const tsText = nsText(this.off);
    const revert = '08c379a0' + '0'.repeat(62) + '20' + '0'.repeat(62) + '0d' + Buffer.from('not permitted').toString('hex').padEnd(64, '0');
    const callResult = !success ? byteaHex(revert) : rng.chance(0.005) ? NULL : bytea(rng.bytes(32 * (1 + rng.int(2))));
    this.counts.contractResults++;
    out.contractResult.add(
      tsText,
      w.idText(contract),
      w.idText(payer),
      w.idText(sender),
      String(amount),
      String(gasLimit),
      String(gasUsed),
      String(gasConsumed),
      logs.bloom ? bytea(logs.bloom) : byteaHex(''),
      callResult,
      callDataFile ? byteaHex('') : bytea(parameters),
      NULL,
      success ? NULL : '0x' + revert,
      NULL,
      create ? `{${w.idText(contract)}}` : '{}',
      byteaHex(hash32),
      String(emitted.index),
      '0',
      String(result),
    );
    out.contractTransactionHash.add(tsText, byteaHex(hash32), w.idText(contract), w.idText(payer), String(result));
    this.contractTransactions(involved, payer);
    if (ethereum) this.ethereumTransaction(payer, sender, contract, create, ethHash, gasLimit, amount, callDataFile ? null : parameters, callDataFile);
    this.blockGas += gasUsed;
    if (success && !create && rng.chance(0.15)) this.precompileChild(payer, contract, emitted);
  }

  /** A FILECREATE holding the call data of a large Ethereum transaction; returns the file number. */
  private callDataFile(payer: number, content: Buffer): number {
    const { w } = this;
    const file = w.layout.firstFile + w.filesUsed++;
    w.createdAt[file] = this.off;
    w.versionStart[file] = this.off;
    this.out.fileData.add(nsText(this.off), w.idText(file), String(TYPE.FILECREATE), bytea(content));
    this.emit({ type: TYPE.FILECREATE, result: SUCCESS, payer, entity: file, fee: 5_000_000, memo: false });
    return file;
  }

  private bloomOf(hexValues: string[]): Uint8Array {
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const value of hexValues) {
      const h = mix32(parseInt(value.slice(-8), 16), parseInt(value.slice(0, 8), 16), value.length);
      for (const bit of [h & 2047, (h >>> 11) & 2047, mix32(h) & 2047]) bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
    }
    return bloom;
  }

  private contractLogs(contract: number, payer: number, involved: number[]): { bloom: Uint8Array | null } {
    const { w, rng, out } = this;
    const u = rng.float();
    const count = u < 0.3 ? 0 : u < 0.6 ? 1 : u < 0.8 ? 2 : 3 + rng.int(2);
    if (count === 0) return { bloom: null };
    const tsText = nsText(this.off);
    const resultBloom = new Uint8Array(BLOOM_BYTES);
    for (let i = 0; i < count; i++) {
      const logContract = rng.chance(0.3) && w.existingContracts > 1 ? w.pickContract(rng) : contract;
      if (!involved.includes(logContract)) involved.push(logContract);
      const event = rng.pick(EVENTS);
      const addressed = event === EVENTS[0] || event === EVENTS[1];
      const topics = [event, ...(addressed ? [this.addressWord(w.pickAccount(rng)), this.addressWord(w.pickAccount(rng))] : [])];
      const address = contractProfile(w.seed, logContract).evmAddress?.toString('hex') ?? logContract.toString(16).padStart(40, '0');
      const bloom = this.bloomOf([address, ...topics]);
      for (let k = 0; k < BLOOM_BYTES; k++) resultBloom[k]! |= bloom[k]!;
      out.contractLog.add(
        tsText,
        String(i),
        w.idText(logContract),
        w.idText(contract),
        w.idText(payer),
        bytea(bloom),
        bytea(rng.bytes(32 * (1 + rng.int(2)))),
        byteaHex(topics[0]!),
        topics[1] ? byteaHex(topics[1]) : NULL,
        topics[2] ? byteaHex(topics[2]) : NULL,
        NULL,
        NULL,
        String(this.index),
        'f',
      );
    }
    for (let k = 0; k < BLOOM_BYTES; k++) this.blockBloom[k]! |= resultBloom[k]!;
    this.blockHasBloom = true;
    return { bloom: resultBloom };
  }

  private addressWord(num: number): string {
    return ZERO_WORD_PREFIX + num.toString(16).padStart(16, '0');
  }

  private stateChanges(contract: number, payer: number, involved: number[], success: boolean): void {
    const { w, rng, out } = this;
    const count = success ? rng.int(5) : rng.int(3);
    const tsText = nsText(this.off);
    const used = new Set<string>();
    for (let i = 0; i < count; i++) {
      const target = involved.length > 2 && rng.chance(0.2) ? involved[2 + rng.int(involved.length - 2)]! : contract;
      const slot = rng.chance(0.4) ? rng.int(16).toString(16).padStart(2, '0') : rng.bytes(32).toString('hex');
      if (used.has(`${target}:${slot}`)) continue;
      used.add(`${target}:${slot}`);
      out.contractStateChange.add(
        tsText,
        w.idText(target),
        byteaHex(slot),
        bytea(rng.bytes(32)),
        success && rng.chance(0.8) ? bytea(rng.bytes(32)) : NULL,
        w.idText(payer),
        'f',
      );
    }
  }

  /** One contract_transaction row per involved entity, each carrying the whole list. */
  private contractTransactions(involved: number[], payer: number): void {
    const tsText = nsText(this.off);
    const payerText = this.w.idText(payer);
    const ids = `{${involved.map((id) => this.w.idText(id)).join(',')}}`;
    for (const id of involved) this.out.contractTransaction.add(tsText, this.w.idText(id), payerText, ids);
  }

  private ethereumTransaction(
    payer: number,
    sender: number,
    contract: number,
    create: boolean,
    hash: string,
    gasLimit: number,
    amount: number,
    callData: Buffer | null,
    callDataFile: number,
  ): void {
    const { w, rng } = this;
    const u = rng.float();
    const type = u < 0.75 ? 2 : u < 0.95 ? 0 : 1;
    const evm = contractProfile(w.seed, contract).evmAddress;
    const to = create ? NULL : evm ? bytea(evm) : byteaHex(contract.toString(16).padStart(40, '0'));
    const value = amount > 0 ? (BigInt(amount) * WEIBARS_PER_TINYBAR).toString(16) : '';
    const recovery = rng.int(2);
    const data = Buffer.concat([Buffer.from([type === 0 ? 0xf8 : type]), rng.bytes(96), callData ?? Buffer.alloc(0)]);
    this.out.ethereumTransaction.add(
      nsText(this.off),
      w.idText(payer),
      byteaHex(hash),
      String(type),
      String(w.ethNonce[sender]!++),
      bytea(this.chainId),
      String(gasLimit),
      type === 2 ? NULL : byteaHex(GAS_PRICE_WEIBARS),
      type === 2 ? byteaHex(GAS_PRICE_WEIBARS) : NULL,
      type === 2 ? byteaHex(PRIORITY_FEE_WEIBARS) : NULL,
      String(gasLimit * TINYBARS_PER_GAS),
      byteaHex(value.length % 2 ? '0' + value : value),
      callData ? bytea(callData) : NULL,
      callDataFile ? w.idText(callDataFile) : NULL,
      bytea(data),
      bytea(rng.bytes(32)),
      bytea(rng.bytes(32)),
      type === 0 ? byteaHex(recovery ? '1c' : '1b') : NULL,
      String(recovery),
      to,
      NULL,
      NULL,
    );
  }

  /** A child record (nonce 1) of a call into the token service's system contract. */
  private precompileChild(payer: number, contract: number, parent: Emitted): void {
    const { w, rng, out } = this;
    const parentTs = this.off;
    this.advanceTo(this.off + 1);
    const emitted = this.emit({
      type: TYPE.CRYPTOTRANSFER,
      result: SUCCESS,
      payer,
      fee: 0,
      nonce: 1,
      parent: parentTs,
      validStart: parent.validStart,
      node: parent.node,
      memo: false,
    });
    const tsText = nsText(this.off);
    const hash32 = emitted.hashHex.slice(0, 64);
    const gasUsed = 10_000 + rng.int(20_000);
    this.counts.contractResults++;
    out.contractResult.add(
      tsText,
      w.idText(HTS_SYSTEM_CONTRACT),
      w.idText(payer),
      w.idText(contract),
      '0',
      String(gasUsed * 2),
      String(gasUsed),
      String(gasUsed),
      byteaHex(''),
      bytea(rng.bytes(32)),
      bytea(Buffer.concat([Buffer.from('eca81d42', 'hex'), rng.bytes(96)])),
      NULL,
      NULL,
      NULL,
      '{}',
      byteaHex(hash32),
      String(emitted.index),
      '1',
      String(SUCCESS),
    );
    out.contractTransactionHash.add(tsText, byteaHex(hash32), w.idText(HTS_SYSTEM_CONTRACT), w.idText(payer), String(SUCCESS));
    this.contractTransactions([HTS_SYSTEM_CONTRACT, payer], payer);
    this.blockGas += gasUsed;
  }

  // ---- balance snapshots ------------------------------------------------------------------

  /**
   * Balances at `at`: every account and contract in the first snapshot of a calendar month, else
   * the treasury (whose row marks the snapshot) and what changed since the previous snapshot.
   */
  private async snapshot(at: number): Promise<void> {
    const { w, out } = this;
    const tsText = nsText(at);
    const month = monthOf(at);
    const full = month !== this.lastSnapshotMonth;
    this.lastSnapshotMonth = month;
    this.counts.snapshots++;
    const write = (num: number) => out.accountBalance.add(tsText, w.idText(num), String(w.balance[num]!));
    if (full) {
      this.counts.fullSnapshots++;
      for (const num of w.layout.systemAccounts()) write(num);
      for (let num = FIRST_USER_ACCOUNT; num < FIRST_USER_ACCOUNT + w.existingAccounts; num++) {
        if (!w.deleted[num]) write(num);
        if (num % 4096 === 0) await this.flush();
      }
      for (let num = w.layout.firstContract; num < w.layout.firstContract + w.existingContracts; num++) write(num);
    } else {
      write(TREASURY);
      for (let i = 0; i < w.changedCount; i++) if (w.changedList[i] !== TREASURY) write(w.changedList[i]!);
    }
    for (let i = 0; i < w.changedCount; i++) w.changed[w.changedList[i]!] = 0;
    w.changedCount = 0;

    const writePair = (p: number) =>
      out.tokenBalance.add(tsText, w.idText(w.pairAccount[p]!), w.idText(w.layout.tokenNum(w.assocToken[p]!)), String(w.pairBalance[p]!));
    if (full) {
      for (let p = 0; p < w.assocToken.length; p++) {
        writePair(p);
        if (p % 4096 === 0) await this.flush();
      }
    } else for (let i = 0; i < w.pairChangedCount; i++) writePair(w.pairChangedList[i]!);
    for (let i = 0; i < w.pairChangedCount; i++) w.pairChanged[w.pairChangedList[i]!] = 0;
    w.pairChangedCount = 0;
  }
}

