/**
 * What each block of the synthetic ledger holds: how many transactions (skewed, adding up to the
 * scale's total) and of which kinds (quotas spread evenly over the window, the rest by weight).
 */
import { Rng } from './random.js';
import type { World } from './world.js';

export const KIND = {
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

/** Transactions per block: skewed (quiet blocks and bursts) but adding up to exactly the target. */
export class BlockSizes {
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

export function quota(total: number, block: number, blocks: number): number {
  return Math.floor((total * (block + 1)) / blocks);
}

/** The kinds of each block's transactions, in order. */
export class BlockPlanner {
  private accountsScheduled = 0;
  private contractsScheduled = 0;
  private contractTxsScheduled = 0;

  constructor(
    private readonly w: World,
    private readonly rng: Rng,
  ) {}

  plan(b: number, size: number, mintsDone: number): number[] {
    const { w, rng } = this;
    const { blocks, contractResults } = w.scale;
    const kinds: number[] = [];
    if (b === Math.floor(blocks / 2)) kinds.push(KIND.exchangeRateUpdate);
    for (; this.accountsScheduled < quota(w.layout.newAccounts, b, blocks); this.accountsScheduled++) kinds.push(KIND.accountCreate);
    let creates = 0;
    for (; this.contractsScheduled < quota(w.layout.newContracts, b, blocks); this.contractsScheduled++, creates++)
      kinds.push(KIND.contractCreate);
    const contractTxs = Math.max(0, quota(contractResults, b, blocks) - this.contractTxsScheduled - creates);
    this.contractTxsScheduled += contractTxs + creates;
    for (let i = 0; i < contractTxs; i++) kinds.push(rng.chance(0.6) ? KIND.ethereumCall : KIND.contractCall);
    const mintsDue = quota(w.nftsToMint, b, blocks) - mintsDone;
    if (mintsDue > 0) kinds.push(KIND.nftMint);
    while (kinds.length < size) kinds.push(rng.weighted(FILLER_WEIGHTS, FILLER_TOTAL));
    return rng.shuffle(kinds);
  }
}
