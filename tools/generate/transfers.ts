/** Transactions of hbar and fungible tokens, topic messages, account creation and updates, the exchange rate file. */
import { TransactionType as TYPE } from '../../src/domain/transactionTypes.js';
import { bytea } from './copyText.js';
import { accountEntityRow } from './entities.js';
import { SUCCESS, type LedgerWriter } from './ledgerWriter.js';
import { exchangeRateSet } from './systemFiles.js';
import { epochSeconds, nsText } from './time.js';
import { EXCHANGE_RATE_FILE, FIRST_USER_ACCOUNT, HUBS, TREASURY } from './layout.js';

export function hbarTransfer(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
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
      tx.credit(payer, -each);
      tx.credit(receiver, each);
    }
  }
  tx.emit({ type: TYPE.CRYPTOTRANSFER, result: tx.result(fail), payer, fee: 80_000 + rng.int(10_000) + receivers.length * 5_000 });
}

export function tokenTransfer(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
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
  if (from < 0 || to < 0) {
    hbarTransfer(tx, fail);
    return;
  }
  const payer = w.pairAccount[from]!;
  const result = tx.result(fail);
  if (!fail) {
    const amount = Math.max(1, Math.floor(w.pairBalance[from]! * (0.01 + 0.3 * rng.float())));
    const tsText = nsText(tx.off);
    const tokenText = w.idText(w.layout.tokenNum(token));
    const payerText = w.idText(payer);
    tx.out.tokenTransfer.add(tsText, tokenText, payerText, String(-amount), payerText, 'f');
    tx.out.tokenTransfer.add(tsText, tokenText, w.idText(w.pairAccount[to]!), String(amount), payerText, 'f');
    w.addPairBalance(from, -amount, tx.off);
    w.addPairBalance(to, amount, tx.off);
  }
  tx.emit({ type: TYPE.CRYPTOTRANSFER, result, payer, fee: 100_000 + rng.int(20_000) });
}

export function topicMessage(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
  const payer = rng.chance(0.7) ? HUBS.messenger : w.pickAccount(rng);
  tx.emit({ type: TYPE.CONSENSUSSUBMITMESSAGE, result: tx.result(fail), payer, entity: w.pickTopic(rng), fee: 8_000 + rng.int(2_000) });
}

export function accountUpdate(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
  const num = w.pickAccount(rng);
  if (!fail && w.version[num]! < 255) {
    tx.out.entityHistory.add(...accountEntityRow(w, num, tx.off));
    w.version[num]!++;
    w.versionStart[num] = tx.off;
    w.applyStaking(num, tx.off);
  }
  tx.emit({ type: TYPE.CRYPTOUPDATEACCOUNT, result: tx.result(fail), payer: num, entity: num, fee: 1_500_000 + rng.int(100_000) });
}

export function accountCreate(tx: LedgerWriter): void {
  const { w, rng } = tx;
  const payer = rng.chance(0.5) ? HUBS.exchange : w.pickAccount(rng);
  const num = FIRST_USER_ACCOUNT + w.existingAccounts;
  w.existingAccounts++;
  w.createdAt[num] = tx.off;
  w.versionStart[num] = tx.off;
  w.balanceAt[num] = tx.off;
  w.applyStaking(num, tx.off);
  const initial = Math.max(1_000_000, Math.floor(Number(w.balance[payer]!) * 0.001 * rng.float()));
  tx.credit(payer, -initial);
  tx.credit(num, initial);
  tx.emit({ type: TYPE.CRYPTOCREATEACCOUNT, result: SUCCESS, payer, entity: num, fee: 5_000_000 + rng.int(500_000) });
}

export function exchangeRateUpdate(tx: LedgerWriter): void {
  const seconds = epochSeconds(tx.off);
  const content = exchangeRateSet(
    { hbarEquiv: 30_000, centEquiv: 330_000, expirationSeconds: seconds + 3_600 },
    { hbarEquiv: 30_000, centEquiv: 336_000, expirationSeconds: seconds + 7_200 },
  );
  tx.out.fileData.add(nsText(tx.off), tx.w.idText(EXCHANGE_RATE_FILE), String(TYPE.FILEUPDATE), bytea(content));
  tx.emit({ type: TYPE.FILEUPDATE, result: SUCCESS, payer: TREASURY, entity: EXCHANGE_RATE_FILE, fee: 0, memo: false });
}
