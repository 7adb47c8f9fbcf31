/**
 * The window of the synthetic ledger, block by block: record files every ~2 s with their
 * transactions and everything a transaction leaves behind (transaction hash, crypto/token/NFT
 * transfers, staking rewards, entity transactions, contract results with logs, state changes,
 * Ethereum transactions and contract_transaction rows), entity versions on updates, and balance
 * snapshots at regular intervals.
 */
import { BlockPlanner, BlockSizes, KIND, quota } from './blockPlan.js';
import { contractTransaction } from './contractTransactions.js';
import { bytea, byteaHex } from './copyText.js';
import { LedgerWriter } from './ledgerWriter.js';
import { nftApproval, nftMints, nftTransfer } from './nftTransactions.js';
import { BalanceSnapshots } from './snapshots.js';
import type { Writers } from './tables.js';
import { epochSeconds, nsText, recordFileName, BLOCK_INTERVAL_NS } from './time.js';
import { accountCreate, accountUpdate, exchangeRateUpdate, hbarTransfer, tokenTransfer, topicMessage } from './transfers.js';
import type { World } from './world.js';

const FAILURE_RATE = 0.015;

export class LedgerStream {
  private readonly tx: LedgerWriter;
  private readonly planner: BlockPlanner;
  private readonly snapshots: BalanceSnapshots;
  private prevHash = '0'.repeat(96);
  /** offset of the first consensus timestamp of the window */
  firstTimestamp = 0;

  constructor(
    private readonly w: World,
    private readonly out: Writers,
    chainId: Buffer,
    flush: () => Promise<void>,
  ) {
    this.tx = new LedgerWriter(w, out, chainId);
    this.planner = new BlockPlanner(w, this.tx.rng);
    this.snapshots = new BalanceSnapshots(w, out, this.tx.counts, flush);
  }

  get counts(): LedgerWriter['counts'] {
    return this.tx.counts;
  }

  /** Generates every block; `afterBlock` runs between blocks (flushing, progress). */
  async run(afterBlock: (block: number) => Promise<void>): Promise<void> {
    const { blocks, transactions, snapshots } = this.w.scale;
    const sizes = new BlockSizes(this.w.seed, blocks, transactions);
    let nextSnapshot = 0;
    for (let b = 0; b < blocks; b++) {
      const end = this.block(b, sizes.next());
      if (b === quota(blocks, nextSnapshot, snapshots) - 1) {
        await this.snapshots.write(end);
        nextSnapshot++;
      }
      await afterBlock(b);
    }
  }

  /** The offset of the last consensus timestamp written. */
  get lastTimestamp(): number {
    return this.tx.off;
  }

  /** One block; returns the offset of its last transaction (consensus_end). */
  private block(b: number, size: number): number {
    const { w, tx, out } = this;
    const { rng } = tx;
    const kinds = this.planner.plan(b, size, tx.mintsDone);
    const start = b * BLOCK_INTERVAL_NS + rng.int(10_000_000);
    const spacing = (BLOCK_INTERVAL_NS * 0.9) / kinds.length;
    tx.startBlock();
    let first = -1;
    for (let i = 0; i < kinds.length; i++) {
      tx.advanceTo(Math.floor(start + i * spacing + rng.float() * spacing * 0.5));
      if (first < 0) first = tx.off;
      this.transaction(kinds[i]!, b);
    }
    const hash = rng.bytes(48).toString('hex');
    const fileHash = rng.bytes(48).toString('hex');
    out.recordFile.add(
      String(b),
      nsText(first),
      nsText(tx.off),
      String(tx.index),
      hash,
      this.prevHash,
      recordFileName(first),
      String(tx.blockGas),
      tx.blockHasBloom ? bytea(tx.blockBloom) : byteaHex(''),
      String(2_000 + tx.index * 450 + rng.int(400)),
      '0',
      fileHash,
      '0',
      '47',
      '0',
      String(epochSeconds(tx.off) + 2),
      String(epochSeconds(tx.off) + 3),
      String(rng.int(w.layout.nodes)),
      tx.blockGas > 0 ? '1' : '0',
      '0',
      '47',
      '0',
      '6',
    );
    this.prevHash = hash;
    if (b === 0) this.firstTimestamp = first;
    return tx.off;
  }

  private transaction(kind: number, block: number): void {
    const { tx } = this;
    const fail = kind <= KIND.nftApproval && tx.rng.chance(FAILURE_RATE);
    switch (kind) {
      case KIND.hbarTransfer:
        hbarTransfer(tx, fail);
        return;
      case KIND.tokenTransfer:
        tokenTransfer(tx, fail);
        return;
      case KIND.nftTransfer:
        nftTransfer(tx, fail);
        return;
      case KIND.topicMessage:
        topicMessage(tx, fail);
        return;
      case KIND.accountUpdate:
        accountUpdate(tx, fail);
        return;
      case KIND.nftApproval:
        nftApproval(tx, fail);
        return;
      case KIND.accountCreate:
        accountCreate(tx);
        return;
      case KIND.nftMint:
        nftMints(tx, quota(this.w.nftsToMint, block, this.w.scale.blocks) - tx.mintsDone);
        return;
      case KIND.contractCreate:
        contractTransaction(tx, tx.rng.chance(0.3) ? 'ethereumCreate' : 'create');
        return;
      case KIND.contractCall:
        contractTransaction(tx, 'call');
        return;
      case KIND.ethereumCall:
        contractTransaction(tx, 'ethereum');
        return;
      case KIND.exchangeRateUpdate:
        exchangeRateUpdate(tx);
        return;
      default:
        throw new Error(`unknown transaction kind ${kind}`);
    }
  }
}
