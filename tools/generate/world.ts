/**
 * The state of the synthetic ledger while its window is generated: entity number ranges, balances,
 * versions, token associations and NFT ownership, in typed arrays sized by the number of entities
 * (never by the number of transactions, so memory stays bounded at any scale).
 */
import { encodeEntityId, type ShardRealm } from '../../src/domain/entityId.js';
import { accountKeyKind, accountSettings, tokenProfile } from './profiles.js';
import { Rng } from './random.js';
import type { Scale } from './scales.js';
import { epochDay, HISTORY_NS, NS_PER_DAY } from './time.js';
import { associationCount, collectionSizes, permutation } from './distributions.js';
import {
  ADDRESS_BOOK_FILES,
  EXCHANGE_RATE_FILE,
  FEE_COLLECTOR,
  FEE_SCHEDULE_FILE,
  FIRST_USER_ACCOUNT,
  HUBS,
  HUB_NUMS,
  Layout,
  NODE_REWARD_ACCOUNT,
  STAKING_REWARD_ACCOUNT,
  TREASURY,
} from './layout.js';

const SKEW = 3;

export class World {
  readonly layout: Layout;
  /** entity id text by number, for the configured shard and realm */
  readonly idText: (num: number) => string;

  // per entity number
  readonly balance: BigInt64Array;
  readonly balanceAt: Float64Array;
  readonly createdAt: Float64Array;
  readonly version: Uint8Array;
  readonly versionStart: Float64Array;
  readonly stakedNode: Int16Array;
  readonly declineReward: Uint8Array;
  readonly lastRewardDay: Int32Array;
  readonly stakePeriodStart: Int32Array;
  readonly ethNonce: Uint32Array;
  readonly deleted: Uint8Array;
  readonly changed: Uint8Array;
  readonly changedList: Int32Array;
  changedCount = 0;

  /** offset of the last consensus timestamp of the window, once it is generated */
  endOffset = 0;
  existingAccounts: number;
  existingContracts: number;
  filesUsed = 0;
  readonly ecdsaAccounts: Int32Array;

  // token associations of pre-existing accounts, by account (CSR) and by token
  readonly assocStart: Int32Array;
  readonly assocToken: Int32Array;
  readonly pairAccount: Int32Array;
  readonly pairBalance: Float64Array;
  readonly pairAt: Float64Array;
  readonly pairCreated: Float64Array;
  readonly pairChanged: Uint8Array;
  readonly pairChangedList: Int32Array;
  pairChangedCount = 0;
  readonly holderStart: Int32Array;
  readonly holderPair: Int32Array;
  readonly tokenTreasury: Int32Array;
  readonly tokenCreated: Float64Array;
  /** token popularity rank → token index (fungible and NFT collections interleaved) */
  readonly tokenByRank: Int32Array;
  readonly fungibleByRank: Int32Array;

  // NFTs, flattened: collection c holds serials 1..capacity at nftStart[c]…
  readonly nftStart: Int32Array;
  readonly nftMinted: Int32Array;
  readonly nftOwner: Int32Array;
  readonly nftSpender: Int32Array;
  readonly nftDelegating: Int32Array;
  readonly nftCreated: Float64Array;
  readonly nftModified: Float64Array;
  readonly nftBurned: Uint8Array;
  /** serials minted during the window (the rest exist when it opens) */
  readonly nftsToMint: number;

  constructor(
    readonly seed: number,
    readonly scale: Scale,
    readonly system: ShardRealm,
  ) {
    this.layout = new Layout(scale);
    const { layout } = this;
    const base = encodeEntityId(system.shard, system.realm, 0n);
    this.idText = base === 0n ? (num) => String(num) : (num) => String(base + BigInt(num));
    const n = layout.end;
    this.balance = new BigInt64Array(n);
    this.balanceAt = new Float64Array(n);
    this.createdAt = new Float64Array(n).fill(NaN);
    this.version = new Uint8Array(n);
    this.versionStart = new Float64Array(n);
    this.stakedNode = new Int16Array(n).fill(-1);
    this.declineReward = new Uint8Array(n);
    this.lastRewardDay = new Int32Array(n);
    this.stakePeriodStart = new Int32Array(n).fill(-1);
    this.ethNonce = new Uint32Array(n);
    this.deleted = new Uint8Array(n);
    this.changed = new Uint8Array(n);
    this.changedList = new Int32Array(n);
    this.existingAccounts = layout.preAccounts;
    this.existingContracts = layout.preContracts;

    const rng = new Rng(seed, 1);
    this.initSystemEntities();
    this.ecdsaAccounts = this.initAccounts(rng);
    this.initContracts(rng);
    this.initOtherEntities(rng);

    this.tokenByRank = permutation(rng, layout.tokens);
    this.fungibleByRank = Int32Array.from(this.tokenByRank.filter((t) => !layout.isNftToken(t)));
    this.tokenTreasury = new Int32Array(layout.tokens);
    this.tokenCreated = new Float64Array(layout.tokens);
    const assoc = this.buildAssociations(rng);
    this.assocStart = assoc.start;
    this.assocToken = assoc.token;
    const pairs = this.assocToken.length;
    this.pairAccount = new Int32Array(pairs);
    for (let a = 0; a < layout.preAccounts; a++) {
      for (let p = this.assocStart[a]!; p < this.assocStart[a + 1]!; p++) this.pairAccount[p] = FIRST_USER_ACCOUNT + a;
    }
    this.pairBalance = new Float64Array(pairs);
    this.pairAt = new Float64Array(pairs);
    this.pairCreated = new Float64Array(pairs);
    this.pairChanged = new Uint8Array(pairs);
    this.pairChangedList = new Int32Array(pairs);
    const holders = this.buildHolders();
    this.holderStart = holders.start;
    this.holderPair = holders.pair;

    const nftCount = scale.nfts;
    this.nftStart = collectionSizes(rng, layout.nftCollections, nftCount);
    this.nftMinted = new Int32Array(layout.nftCollections);
    this.nftOwner = new Int32Array(nftCount);
    this.nftSpender = new Int32Array(nftCount);
    this.nftDelegating = new Int32Array(nftCount);
    this.nftCreated = new Float64Array(nftCount);
    this.nftModified = new Float64Array(nftCount);
    this.nftBurned = new Uint8Array(nftCount);
    this.nftsToMint = this.initTokenState(rng);
  }

  // ---- picking entities -------------------------------------------------------------------

  /** An existing, live user account, skewed towards the busiest (lowest numbers). */
  pickAccount(rng: Rng): number {
    let num = FIRST_USER_ACCOUNT + rng.powerIndex(this.existingAccounts, SKEW);
    while (this.deleted[num]) num = num + 1 < FIRST_USER_ACCOUNT + this.existingAccounts ? num + 1 : FIRST_USER_ACCOUNT + HUB_NUMS.length;
    return num;
  }

  pickOtherAccount(rng: Rng, not: number): number {
    for (let i = 0; i < 4; i++) {
      const num = this.pickAccount(rng);
      if (num !== not) return num;
    }
    return not === HUBS.exchange ? HUBS.whale : HUBS.exchange;
  }

  pickEcdsaAccount(rng: Rng): number {
    return this.ecdsaAccounts[rng.powerIndex(this.ecdsaAccounts.length, SKEW)]!;
  }

  pickContract(rng: Rng): number {
    return this.layout.firstContract + rng.powerIndex(this.existingContracts, SKEW);
  }

  pickTopic(rng: Rng): number {
    return this.layout.firstTopic + rng.powerIndex(this.layout.topics, SKEW);
  }

  pickFungibleToken(rng: Rng): number {
    return this.fungibleByRank[rng.powerIndex(this.fungibleByRank.length, 2)]!;
  }

  pickCollection(rng: Rng): number {
    return rng.powerIndex(this.layout.nftCollections, 2);
  }

  /** A pair index of a holder of `token`, skewed towards the busiest accounts. */
  pickHolder(rng: Rng, token: number): number {
    const start = this.holderStart[token]!;
    const count = this.holderStart[token + 1]! - start;
    return this.holderPair[start + rng.powerIndex(count, 2)]!;
  }

  /** The pair index of (account, token), or -1 when not associated. */
  pairOf(account: number, token: number): number {
    const a = account - FIRST_USER_ACCOUNT;
    if (a < 0 || a >= this.layout.preAccounts) return -1;
    let lo = this.assocStart[a]!;
    let hi = this.assocStart[a + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = this.assocToken[mid]!;
      if (t === token) return mid;
      if (t < token) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  pairToken(pair: number): number {
    return this.assocToken[pair]!;
  }

  // ---- state changes ----------------------------------------------------------------------

  addBalance(num: number, amount: number, at: number): void {
    this.balance[num] = this.balance[num]! + BigInt(amount);
    this.balanceAt[num] = at;
    if (!this.changed[num]) {
      this.changed[num] = 1;
      this.changedList[this.changedCount++] = num;
    }
  }

  addPairBalance(pair: number, amount: number, at: number): void {
    this.pairBalance[pair] = this.pairBalance[pair]! + amount;
    this.pairAt[pair] = at;
    if (!this.pairChanged[pair]) {
      this.pairChanged[pair] = 1;
      this.pairChangedList[this.pairChangedCount++] = pair;
    }
  }

  settings(num: number, version = this.version[num]!) {
    return accountSettings(this.seed, num, version, this.layout.nodes, FIRST_USER_ACCOUNT, this.layout.preAccounts);
  }

  /** Applies the staking settings of the account's current version. */
  applyStaking(num: number, at: number): void {
    const s = this.settings(num);
    const wasNode = this.stakedNode[num]! >= 0;
    this.stakedNode[num] = s.stakedNodeId;
    this.declineReward[num] = s.declineReward ? 1 : 0;
    if (s.stakedNodeId >= 0 && !wasNode) {
      this.stakePeriodStart[num] = epochDay(at);
      this.lastRewardDay[num] = epochDay(at);
    } else if (s.stakedNodeId < 0) {
      this.stakePeriodStart[num] = -1;
    }
  }

  isLiveAccount(num: number): boolean {
    return !Number.isNaN(this.createdAt[num]!) && !this.deleted[num];
  }

  // ---- initial state ----------------------------------------------------------------------

  private initSystemEntities(): void {
    const genesis = -HISTORY_NS;
    for (const num of [...this.layout.systemAccounts(), ...ADDRESS_BOOK_FILES, FEE_SCHEDULE_FILE, EXCHANGE_RATE_FILE]) {
      this.createdAt[num] = genesis;
      this.versionStart[num] = genesis;
      this.balanceAt[num] = genesis;
    }
    for (let i = 0; i < this.layout.nodes; i++) this.balance[this.layout.nodeAccount(i)] = 1_000_000_000_000n;
    this.balance[FEE_COLLECTOR] = 100_000_000_000_000n;
    this.balance[STAKING_REWARD_ACCOUNT] = 200_000_000_000_000_000n;
    this.balance[NODE_REWARD_ACCOUNT] = 10_000_000_000_000n;
  }

  /** Pre-existing accounts: creation times rise with the number, balances are log-uniform. */
  private initAccounts(rng: Rng): Int32Array {
    const { preAccounts } = this.layout;
    const ecdsa: number[] = [];
    let total = 0n;
    for (let i = 0; i < preAccounts; i++) {
      const num = FIRST_USER_ACCOUNT + i;
      const created = Math.floor(-HISTORY_NS * (1 - i / preAccounts)) + rng.int(1_000_000_000);
      this.createdAt[num] = created;
      this.versionStart[num] = created;
      this.balanceAt[num] = created + Math.floor(-created * rng.float());
      if (i < HUB_NUMS.length) this.balance[num] = 1_000_000_000_000_000n;
      else if (i % 211 === 210) this.deleted[num] = 1;
      else this.balance[num] = BigInt(Math.floor(10 ** (8 + 4 * rng.float()) * (i < 1000 ? 10 : 1)));
      total += this.balance[num]!;
      if (accountKeyKind(this.seed, num) === 'ECDSA_SECP256K1' && !this.deleted[num]) ecdsa.push(num);
      const s = this.settings(num, 0);
      this.stakedNode[num] = s.stakedNodeId;
      this.declineReward[num] = s.declineReward ? 1 : 0;
      if (s.stakedNodeId >= 0) {
        const day = epochDay(0) - 1 - rng.int(20);
        this.lastRewardDay[num] = day;
        this.stakePeriodStart[num] = day;
      }
    }
    for (const num of this.layout.systemAccounts()) if (num !== TREASURY) total += this.balance[num]!;
    // the treasury holds what the others do not of the 50 billion hbar
    this.balance[TREASURY] = 5_000_000_000_000_000_000n - total;
    return Int32Array.from(ecdsa.length > 0 ? ecdsa : [HUBS.relay]);
  }

  private initContracts(rng: Rng): void {
    const { firstContract, preContracts } = this.layout;
    for (let i = 0; i < preContracts; i++) {
      const num = firstContract + i;
      const created = Math.floor(-HISTORY_NS * rng.float());
      this.createdAt[num] = created;
      this.versionStart[num] = created;
      this.balanceAt[num] = created;
      this.balance[num] = rng.chance(0.3) ? BigInt(rng.int(1e12)) : 0n;
      this.ethNonce[num] = 1;
    }
  }

  /** Tokens and topics. */
  private initOtherEntities(rng: Rng): void {
    const { firstToken, firstTopic, topics } = this.layout;
    for (let num = firstToken; num < firstTopic + topics; num++) {
      const created = Math.floor(-HISTORY_NS * (0.2 + 0.8 * rng.float()));
      this.createdAt[num] = created;
      this.versionStart[num] = created;
    }
  }

  /** For each pre-existing account, the sorted token indexes it is associated with (CSR). */
  private buildAssociations(rng: Rng): { start: Int32Array; token: Int32Array } {
    const { preAccounts, tokens } = this.layout;
    for (let t = 0; t < tokens; t++) {
      this.tokenTreasury[t] = this.pickAccount(rng);
      this.tokenCreated[t] = this.createdAt[this.layout.tokenNum(t)]!;
    }
    const treasuries = new Map<number, number[]>();
    for (let t = 0; t < tokens; t++) {
      const a = this.tokenTreasury[t]! - FIRST_USER_ACCOUNT;
      treasuries.set(a, [...(treasuries.get(a) ?? []), t]);
    }
    const start = new Int32Array(preAccounts + 1);
    const chunks: Int32Array[] = [];
    let total = 0;
    for (let a = 0; a < preAccounts; a++) {
      const chosen = new Set<number>(treasuries.get(a) ?? []);
      if (!this.deleted[FIRST_USER_ACCOUNT + a]) {
        const want = Math.min(tokens, associationCount(rng, a));
        if (want > tokens / 4) {
          for (const t of permutation(rng, tokens).subarray(0, want)) chosen.add(t);
        } else {
          for (let tries = 0; chosen.size < want && tries < want * 4; tries++) chosen.add(this.tokenByRank[rng.powerIndex(tokens, 2.5)]!);
        }
      }
      const list = Int32Array.from(chosen).sort();
      chunks.push(list);
      total += list.length;
      start[a + 1] = total;
    }
    const token = new Int32Array(total);
    let p = 0;
    for (const list of chunks) {
      token.set(list, p);
      p += list.length;
    }
    return { start, token };
  }

  /** The pairs of each token, in account order (counting sort over the CSR). */
  private buildHolders(): { start: Int32Array; pair: Int32Array } {
    const { tokens } = this.layout;
    const start = new Int32Array(tokens + 1);
    for (const t of this.assocToken) start[t + 1]!++;
    for (let t = 0; t < tokens; t++) start[t + 1]! += start[t]!;
    const fill = start.slice(0, tokens);
    const pair = new Int32Array(this.assocToken.length);
    for (let p = 0; p < this.assocToken.length; p++) pair[fill[this.assocToken[p]!]!++] = p;
    return { start, pair };
  }

  /** Initial fungible balances and NFTs; returns the number of serials left to mint in the window. */
  private initTokenState(rng: Rng): number {
    for (let p = 0; p < this.assocToken.length; p++) {
      const t = this.assocToken[p]!;
      const account = this.pairAccount[p]!;
      const created = Math.max(this.tokenCreated[t]!, this.createdAt[account]!) + rng.int(NS_PER_DAY);
      this.pairCreated[p] = Math.min(created, -1e9);
      this.pairAt[p] = this.pairCreated[p]!;
      if (!this.layout.isNftToken(t)) this.pairBalance[p] = Math.floor(10 ** (2 + 8 * rng.float() ** 2));
    }
    let toMint = 0;
    for (let c = 0; c < this.layout.nftCollections; c++) {
      const token = this.layout.fungibleTokens + c;
      const capacity = this.nftStart[c + 1]! - this.nftStart[c]!;
      const initial = Math.max(1, capacity - Math.floor(capacity * 0.05));
      toMint += capacity - initial;
      const from = this.tokenCreated[token]!;
      for (let s = 1; s <= initial; s++) {
        const flat = this.nftStart[c]! + s - 1;
        const created = from + Math.floor((-from - 1e9) * (s / (initial + 1)));
        this.nftCreated[flat] = created;
        if (rng.chance(0.005)) {
          this.nftBurned[flat] = 1;
          this.nftModified[flat] = created + Math.floor(-created * rng.float());
          continue;
        }
        const pair = this.pickHolder(rng, token);
        this.nftOwner[flat] = this.pairAccount[pair]!;
        this.pairBalance[pair]!++;
        this.nftModified[flat] = created + Math.floor(-created * rng.float() * 0.5);
        if (rng.chance(0.05)) {
          const spender = rng.chance(0.5) ? HUBS.marketplace : this.pickAccount(rng);
          if (spender !== this.nftOwner[flat]) this.nftSpender[flat] = spender;
        }
      }
      this.nftMinted[c] = initial;
    }
    return toMint;
  }

  tokenProfile(index: number) {
    return tokenProfile(this.seed, this.layout.tokenNum(index), this.layout.isNftToken(index));
  }
}
