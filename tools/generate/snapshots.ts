/**
 * Balance snapshots (account_balance, token_balance) at regular intervals: full in the first
 * snapshot of a calendar month, the accounts and token balances changed since the previous one after.
 */
import { monthOf, nsText } from './time.js';
import type { Writers } from './tables.js';
import { FIRST_USER_ACCOUNT, TREASURY } from './layout.js';
import type { World } from './world.js';
import type { LedgerWriter } from './ledgerWriter.js';

export class BalanceSnapshots {
  private lastMonth = -1;

  constructor(
    private readonly w: World,
    private readonly out: Writers,
    private readonly counts: LedgerWriter['counts'],
    private readonly flush: () => Promise<void>,
  ) {}

  /**
   * Balances at `at`: every account and contract in the first snapshot of a calendar month, else
   * the treasury (whose row marks the snapshot) and what changed since the previous snapshot.
   */
  async write(at: number): Promise<void> {
    const { w, out, counts } = this;
    const tsText = nsText(at);
    const month = monthOf(at);
    const full = month !== this.lastMonth;
    this.lastMonth = month;
    counts.snapshots++;
    const write = (num: number) => out.accountBalance.add(tsText, w.idText(num), String(w.balance[num]!));
    if (full) {
      counts.fullSnapshots++;
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
