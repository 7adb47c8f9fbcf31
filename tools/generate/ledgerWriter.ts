/**
 * The position of the synthetic ledger being written (the consensus clock, the block under way and
 * its totals) and the transaction row: `emit` writes a transaction with its hash row, its fee and
 * the transfers credited since the previous one, and staking rewards.
 */
import { bytea, byteaHex, NULL } from './copyText.js';
import { Rng } from './random.js';
import { epochDay, nsText } from './time.js';
import type { Writers } from './tables.js';
import { FEE_COLLECTOR, FIRST_USER_ACCOUNT, STAKING_REWARD_ACCOUNT } from './layout.js';
import type { World } from './world.js';
import { TransactionType as TYPE } from '../../src/domain/transactionTypes.js';

export const SUCCESS = 22;
export const CONTRACT_REVERT_EXECUTED = 33;
/** INVALID_SIGNATURE, INSUFFICIENT_PAYER_BALANCE, DUPLICATE_TRANSACTION, INSUFFICIENT_ACCOUNT_BALANCE */
const FAILURES = [7, 10, 11, 28];
export const BLOOM_BYTES = 256;

export interface TxSpec {
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

export interface Emitted {
  hashHex: string;
  validStart: number;
  node: number;
  index: number;
}

export class LedgerWriter {
  readonly rng: Rng;
  /** the offset of the last consensus timestamp written */
  off = -1;
  /** the index of the next transaction in its block */
  index = 0;
  /** gas used by the block's contract results, and the union of their blooms */
  blockGas = 0;
  readonly blockBloom = new Uint8Array(BLOOM_BYTES);
  blockHasBloom = false;
  /** NFTs minted so far */
  mintsDone = 0;
  readonly counts = { contractResults: 0, topLevelTransactions: 0, childTransactions: 0, snapshots: 0, fullSnapshots: 0 };
  private readonly parties = new Int32Array(64);
  private readonly amounts = new Float64Array(64);
  private partyCount = 0;
  private readonly hash = Buffer.alloc(48);

  constructor(
    readonly w: World,
    readonly out: Writers,
    readonly chainId: Buffer,
  ) {
    this.rng = new Rng(w.seed, 2);
  }

  /** Starts a block: its transaction index and totals start over. */
  startBlock(): void {
    this.index = 0;
    this.blockGas = 0;
    this.blockHasBloom = false;
    this.blockBloom.fill(0);
  }

  /** Moves the clock to `planned`, or 1 µs past the last timestamp when that is later. */
  advanceTo(planned: number): number {
    this.off = Math.max(this.off + 1_000, planned);
    return this.off;
  }

  credit(num: number, amount: number): void {
    for (let i = 0; i < this.partyCount; i++) {
      if (this.parties[i] === num) {
        this.amounts[i]! += amount;
        return;
      }
    }
    this.parties[this.partyCount] = num;
    this.amounts[this.partyCount++] = amount;
  }

  result(fail: boolean): number {
    return fail ? this.rng.pick(FAILURES) : SUCCESS;
  }

  /**
   * Writes the transaction (and its transaction_hash row), charges the fee to the payer (node +
   * fee collector) and writes the crypto transfers credited since the last call, paying staking
   * rewards to parties staked to a node that have not had one today.
   */
  emit(s: TxSpec): Emitted {
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
    const memo =
      s.memo !== false && rng.chance(0.08)
        ? bytea(Buffer.from(rng.pick(['payment ', 'invoice ', 'ref ', 'withdrawal ']) + rng.int(1e6)))
        : NULL;
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

  entityTransactions(entities: number[], payer: number, result: number, type: number): void {
    const tsText = nsText(this.off);
    const payerText = this.w.idText(payer);
    const seen: number[] = [payer];
    for (const e of entities) {
      if (seen.includes(e)) continue;
      seen.push(e);
      this.out.entityTransaction.add(tsText, this.w.idText(e), payerText, String(result), String(type));
    }
  }
}
