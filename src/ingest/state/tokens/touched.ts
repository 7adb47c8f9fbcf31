/** The rows a file's token transactions read or change, collected first so that each table is read once per file. */
import type { TokenTransaction } from './decode.js';

export interface TouchedKeys {
  tokens: Set<bigint>;
  /** [account, token] */
  tokenAccounts: Map<string, [bigint, bigint]>;
  /** [token, serial] */
  nfts: Map<string, [bigint, bigint]>;
  /** [token, previous treasury]: NFT treasury changes (a transfer of serial -1), which move every NFT the old treasury holds */
  treasuryMoves: Map<string, [bigint, bigint]>;
}

export const WILDCARD_SERIAL = -1n;

export function touchedKeys(transactions: readonly TokenTransaction[]): TouchedKeys {
  const keys: TouchedKeys = { tokens: new Set(), tokenAccounts: new Map(), nfts: new Map(), treasuryMoves: new Map() };
  const pair = (account: bigint | null, token: bigint | null) => {
    if (account !== null && token !== null) keys.tokenAccounts.set(`${account}/${token}`, [account, token]);
  };
  const nft = (token: bigint | null, serial: bigint) => {
    if (token !== null && serial > 0n) keys.nfts.set(`${token}/${serial}`, [token, serial]);
  };
  for (const t of transactions) {
    const { op, record } = t;
    switch (op.kind) {
      case 'create':
        keys.tokens.add(op.token);
        pair(op.body.treasury, op.token);
        break;
      case 'update':
      case 'pause':
      case 'unpause':
        keys.tokens.add(op.token);
        break;
      case 'associate':
      case 'dissociate':
        for (const token of op.tokens) {
          keys.tokens.add(token);
          pair(op.account, token);
        }
        break;
      case 'freeze':
      case 'unfreeze':
      case 'grantKyc':
      case 'revokeKyc':
        pair(op.account, op.token);
        break;
      case 'mint':
        keys.tokens.add(op.token);
        for (const serial of record.serialNumbers) nft(op.token, serial);
        break;
      case 'burn':
      case 'wipe':
        keys.tokens.add(op.token);
        for (const serial of op.serials) nft(op.token, serial);
        break;
      case 'updateNfts':
        for (const serial of op.serials) nft(op.token, serial);
        break;
      case 'approve':
        for (const a of op.approvals) for (const serial of a.serials) nft(a.token, serial);
        break;
      case 'deleteAllowance':
        for (const r of op.removals) for (const serial of r.serials) nft(r.token, serial);
        break;
      case 'claimAirdrop':
        for (const [receiver, token] of op.claims) {
          keys.tokens.add(token);
          pair(receiver, token);
        }
        break;
      case 'none':
        break;
    }
    // a transfer changes only the balances: its token's row is read only when the operation needs it
    // (a dissociation's burn reads the dissociated tokens' rows, added above)
    for (const list of t.fungible) for (const a of list.transfers) pair(a.accountId, list.tokenId);
    for (const n of t.nftTransfers) {
      pair(n.sender, n.tokenId);
      pair(n.receiver, n.tokenId);
      if (n.serial === WILDCARD_SERIAL && n.sender !== null) keys.treasuryMoves.set(`${n.tokenId}/${n.sender}`, [n.tokenId, n.sender]);
      else nft(n.tokenId, n.serial);
    }
    for (const a of record.automaticAssociations) {
      keys.tokens.add(a.tokenId);
      pair(a.accountId, a.tokenId);
    }
  }
  return keys;
}
