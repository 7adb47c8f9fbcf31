/** NFT transfers, allowances and mints. */
import { TransactionType as TYPE } from '../../src/domain/transactionTypes.js';
import { SUCCESS, type LedgerWriter } from './ledgerWriter.js';
import { hbarTransfer } from './transfers.js';
import { HUBS } from './layout.js';

/** A random minted, unburned NFT: [collection, serial, flat index], or null. */
function pickNft(tx: LedgerWriter): [number, number, number] | null {
  const { w, rng } = tx;
  const c = w.pickCollection(rng);
  const serial = 1 + rng.int(w.nftMinted[c]!);
  const flat = w.nftStart[c]! + serial - 1;
  return w.nftOwner[flat] ? [c, serial, flat] : null;
}

export function nftTransfer(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
  const nft = pickNft(tx);
  if (!nft) {
    hbarTransfer(tx, fail);
    return;
  }
  const [c, serial, flat] = nft;
  const token = w.layout.fungibleTokens + c;
  const owner = w.nftOwner[flat]!;
  let to = -1;
  for (let i = 0; i < 3 && to < 0; i++) {
    const p = w.pickHolder(rng, token);
    if (w.pairAccount[p] !== owner) to = p;
  }
  if (to < 0) {
    hbarTransfer(tx, fail);
    return;
  }
  const receiver = w.pairAccount[to]!;
  const spender = w.nftSpender[flat]!;
  const approval = spender !== 0;
  const payer = approval ? spender : owner;
  const tokenNum = w.layout.tokenNum(token);
  const result = tx.result(fail);
  let nftTransfers: string | undefined;
  if (!fail) {
    nftTransfers = `[{"is_approval":${approval},"receiver_account_id":${w.idText(receiver)},"sender_account_id":${w.idText(owner)},"serial_number":${serial},"token_id":${w.idText(tokenNum)}}]`;
    w.addPairBalance(w.pairOf(owner, token), -1, tx.off);
    w.addPairBalance(to, 1, tx.off);
    w.nftOwner[flat] = receiver;
    w.nftSpender[flat] = 0;
    w.nftDelegating[flat] = 0;
    w.nftModified[flat] = tx.off;
    tx.entityTransactions([owner, receiver, tokenNum], payer, result, TYPE.CRYPTOTRANSFER);
  }
  tx.emit({ type: TYPE.CRYPTOTRANSFER, result, payer, fee: 100_000 + rng.int(20_000), ...(nftTransfers ? { nftTransfers } : {}) });
}

export function nftApproval(tx: LedgerWriter, fail: boolean): void {
  const { w, rng } = tx;
  const nft = pickNft(tx);
  if (!nft) {
    hbarTransfer(tx, fail);
    return;
  }
  const [c, , flat] = nft;
  const owner = w.nftOwner[flat]!;
  const spender = rng.chance(0.5) && owner !== HUBS.marketplace ? HUBS.marketplace : w.pickOtherAccount(rng, owner);
  const tokenNum = w.layout.tokenNum(w.layout.fungibleTokens + c);
  const result = tx.result(fail);
  if (!fail) {
    w.nftSpender[flat] = spender;
    w.nftDelegating[flat] = rng.chance(0.05) ? w.pickOtherAccount(rng, owner) : 0;
    w.nftModified[flat] = tx.off;
    tx.entityTransactions([spender, tokenNum], owner, result, TYPE.CRYPTOAPPROVEALLOWANCE);
  }
  tx.emit({ type: TYPE.CRYPTOAPPROVEALLOWANCE, result, payer: owner, fee: 5_000_000 + rng.int(100_000) });
}

/** Mints `count` serials, one TOKENMINT per collection with room left. */
export function nftMints(tx: LedgerWriter, count: number): void {
  const { w, rng } = tx;
  let left = Math.max(1, count);
  while (left > 0 && tx.mintsDone < w.nftsToMint) {
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
      w.nftCreated[flat] = tx.off;
      w.nftModified[flat] = tx.off;
      parts.push(
        `{"is_approval":false,"receiver_account_id":${w.idText(treasury)},"sender_account_id":null,"serial_number":${serial},"token_id":${w.idText(tokenNum)}}`,
      );
    }
    w.addPairBalance(w.pairOf(treasury, token), k, tx.off);
    tx.mintsDone += k;
    left -= k;
    tx.entityTransactions([tokenNum], treasury, SUCCESS, TYPE.TOKENMINT);
    tx.emit({
      type: TYPE.TOKENMINT,
      result: SUCCESS,
      payer: treasury,
      entity: tokenNum,
      fee: 2_000_000 + rng.int(100_000) * k,
      nftTransfers: `[${parts.join(',')}]`,
    });
    if (left > 0) tx.advanceTo(tx.off + 1_000);
  }
}
