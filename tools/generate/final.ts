/**
 * Rows that hold the state at the end of the window (entities, stakes, token associations, NFTs,
 * tokens, contracts) and the system files that exist before it.
 */
import { bool, bytea, byteaHex, NULL, range, text } from './copyText.js';
import { accountEntityRow, contractEntityRow, fileEntityRow, systemAccountRow, tokenEntityRow, topicEntityRow } from './entities.js';
import { contractProfile, nftMetadata } from './profiles.js';
import { keyedRng } from './random.js';
import { exchangeRateSet, feeSchedules } from './systemFiles.js';
import type { Writers } from './tables.js';
import { dayStartOffset, epochDay, epochSeconds, nsText, NS_PER_DAY } from './time.js';
import { ADDRESS_BOOK_FILES, EXCHANGE_RATE_FILE, FEE_SCHEDULE_FILE, FIRST_USER_ACCOUNT } from './layout.js';
import type { World } from './world.js';

const FILECREATE = 17;

/** The fee schedule and exchange rate files as created 30 days before the window. */
export function writeSystemFiles(w: World, out: Writers): void {
  const at = -30 * NS_PER_DAY;
  const far = epochSeconds(0) + 365 * 86_400;
  out.fileData.add(nsText(at), w.idText(FEE_SCHEDULE_FILE), String(FILECREATE), bytea(feeSchedules(far, far + 86_400)));
  out.fileData.add(
    nsText(at + 1),
    w.idText(EXCHANGE_RATE_FILE),
    String(FILECREATE),
    bytea(
      exchangeRateSet(
        { hbarEquiv: 30_000, centEquiv: 360_000, expirationSeconds: far },
        { hbarEquiv: 30_000, centEquiv: 350_000, expirationSeconds: far + 3_600 },
      ),
    ),
  );
}

/** Hands full buffers to the sink; called every few thousand rows so that memory stays bounded. */
export type Flush = () => Promise<void>;

const EVERY = 4096;

export async function writeFinalState(w: World, out: Writers, endOffset: number, flush: Flush): Promise<void> {
  w.endOffset = endOffset;
  await writeEntities(w, out, flush);
  await writeStakes(w, out, endOffset, flush);
  await writeTokens(w, out, flush);
  await writeTokenAccounts(w, out, flush);
  await writeNfts(w, out, flush);
}

async function writeEntities(w: World, out: Writers, flush: Flush): Promise<void> {
  const { layout } = w;
  for (const num of layout.systemAccounts()) out.entity.add(...systemAccountRow(w, num));
  for (const num of [...ADDRESS_BOOK_FILES, FEE_SCHEDULE_FILE, EXCHANGE_RATE_FILE]) out.entity.add(...fileEntityRow(w, num));
  for (let num = FIRST_USER_ACCOUNT; num < FIRST_USER_ACCOUNT + w.existingAccounts; num++) {
    out.entity.add(...accountEntityRow(w, num));
    if (num % EVERY === 0) await flush();
  }
  for (let num = layout.firstContract; num < layout.firstContract + w.existingContracts; num++) {
    out.entity.add(...contractEntityRow(w, num));
    out.contract.add(w.idText(num), NULL, NULL, bytea(contractProfile(w.seed, num).runtimeBytecode));
  }
  for (let t = 0; t < layout.tokens; t++) out.entity.add(...tokenEntityRow(w, t));
  for (let num = layout.firstTopic; num < layout.firstTopic + layout.topics; num++) out.entity.add(...topicEntityRow(w, num));
  for (let num = layout.firstFile; num < layout.firstFile + w.filesUsed; num++) out.entity.add(...fileEntityRow(w, num));
}

/** entity_stake for accounts staked to a node: the last staking period, and the one before in history. */
async function writeStakes(w: World, out: Writers, endOffset: number, flush: Flush): Promise<void> {
  const endPeriod = epochDay(endOffset) - 1;
  const currentFrom = dayStartOffset(endPeriod + 1) + 1;
  const previousFrom = dayStartOffset(endPeriod) + 1;
  for (let num = FIRST_USER_ACCOUNT; num < FIRST_USER_ACCOUNT + w.existingAccounts; num++) {
    const node = w.stakedNode[num]!;
    if (node < 0 || w.deleted[num]) continue;
    const balance = w.balance[num]!;
    const r = keyedRng(w.seed, 9, num);
    const pending = w.declineReward[num] ? 0n : (balance / 10_000n) * BigInt(1 + r.int(30));
    const row = (period: number, from: number, to: number | null) =>
      [
        w.idText(num),
        String(period),
        String(pending),
        String(node),
        String(r.int(3) === 0 ? balance / 3n : 0n),
        String(balance),
        range(nsText(from), to === null ? null : nsText(to)),
      ] as const;
    out.entityStake.add(...row(endPeriod, currentFrom, null));
    if (w.createdAt[num]! < previousFrom) out.entityStakeHistory.add(...row(endPeriod - 1, previousFrom, currentFrom));
    if (num % EVERY === 0) await flush();
  }
}

async function writeTokens(w: World, out: Writers, flush: Flush): Promise<void> {
  const { layout } = w;
  const supply = new Float64Array(layout.tokens);
  for (let p = 0; p < w.assocToken.length; p++) supply[w.assocToken[p]!]! += w.pairBalance[p]!;
  for (let t = 0; t < layout.tokens; t++) {
    const nft = layout.isNftToken(t);
    const profile = w.tokenProfile(t);
    const num = layout.tokenNum(t);
    const created = nsText(w.tokenCreated[t]!);
    const total = String(supply[t]!);
    out.token.add(
      w.idText(num),
      created,
      String(profile.decimals),
      nft ? '0' : total,
      total,
      '9223372036854775807',
      text(profile.name),
      text(profile.symbol),
      w.idText(w.tokenTreasury[t]!),
      nft ? 'NON_FUNGIBLE_UNIQUE' : 'FUNGIBLE_COMMON',
      'INFINITE',
      'NOT_APPLICABLE',
      'f',
      '0',
      '0',
      bytea(profile.adminKey),
      byteaHex(''),
      range(created),
    );
    const royalty =
      nft && keyedRng(w.seed, 10, num).chance(0.3)
        ? `[{"collector_account_id":${w.idText(w.tokenTreasury[t]!)},"denominator":100,"numerator":5}]`
        : NULL;
    out.customFee.add(w.idText(num), NULL, NULL, royalty, range(created));
    if (t % EVERY === 0) await flush();
  }
}

async function writeTokenAccounts(w: World, out: Writers, flush: Flush): Promise<void> {
  for (let p = 0; p < w.assocToken.length; p++) {
    const created = nsText(w.pairCreated[p]!);
    out.tokenAccount.add(
      w.idText(w.pairAccount[p]!),
      w.idText(w.layout.tokenNum(w.assocToken[p]!)),
      't',
      bool(p % 19 === 0),
      String(w.pairBalance[p]!),
      nsText(w.pairAt[p]!),
      created,
      '0',
      '0',
      range(created),
    );
    if (p % EVERY === 0) await flush();
  }
}

async function writeNfts(w: World, out: Writers, flush: Flush): Promise<void> {
  const { layout } = w;
  for (let c = 0; c < layout.nftCollections; c++) {
    const tokenNum = layout.tokenNum(layout.fungibleTokens + c);
    const tokenText = w.idText(tokenNum);
    for (let serial = 1; serial <= w.nftMinted[c]!; serial++) {
      const flat = w.nftStart[c]! + serial - 1;
      const owner = w.nftOwner[flat]!;
      const spender = w.nftSpender[flat]!;
      const delegating = w.nftDelegating[flat]!;
      out.nft.add(
        tokenText,
        String(serial),
        owner ? w.idText(owner) : NULL,
        nsText(w.nftCreated[flat]!),
        bool(w.nftBurned[flat] === 1),
        bytea(nftMetadata(w.seed, tokenNum, serial)),
        spender ? w.idText(spender) : NULL,
        delegating ? w.idText(delegating) : NULL,
        range(nsText(w.nftModified[flat]!)),
      );
      if (flat % EVERY === 0) await flush();
    }
  }
}

/** Accounts owning the most NFTs at the end of the window: [account num, count], busiest first. */
export function topNftOwners(w: World, limit: number): [number, number][] {
  const counts = new Map<number, number>();
  for (let p = 0; p < w.assocToken.length; p++) {
    if (!w.layout.isNftToken(w.assocToken[p]!)) continue;
    const account = w.pairAccount[p]!;
    counts.set(account, (counts.get(account) ?? 0) + w.pairBalance[p]!);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
}
