/**
 * Dataset sizes of the synthetic ledger. `large` is the size the service is meant to serve well (a
 * million accounts, ten million transactions, two million NFTs); the others are 1/10 steps down.
 */

export const SCALE_NAMES = ['tiny', 'small', 'medium', 'large'] as const;
export type ScaleName = (typeof SCALE_NAMES)[number];

export interface Scale {
  name: ScaleName;
  /** user accounts (0.0.1001 and up), of which `newAccountShare` are created during the window */
  accounts: number;
  /** top-level transactions (child records of contract calls come on top) */
  transactions: number;
  /** record files, one every ~2 s */
  blocks: number;
  /** NFT rows (serials) over all collections */
  nfts: number;
  /** contract results of top-level contract transactions (child results come on top) */
  contractResults: number;
  fungibleTokens: number;
  nftCollections: number;
  contracts: number;
  topics: number;
  nodes: number;
  /** balance snapshots over the window (the first of each calendar month is a full one) */
  snapshots: number;
}

const LARGE = {
  accounts: 1_000_000,
  transactions: 10_000_000,
  blocks: 1_000_000,
  nfts: 2_000_000,
  contractResults: 500_000,
  fungibleTokens: 20_000,
  nftCollections: 5_000,
  contracts: 10_000,
  topics: 2_000,
};

const FACTOR: Record<ScaleName, number> = { tiny: 0.001, small: 0.01, medium: 0.1, large: 1 };
const NODES: Record<ScaleName, number> = { tiny: 4, small: 7, medium: 16, large: 29 };
const SNAPSHOTS: Record<ScaleName, number> = { tiny: 4, small: 8, medium: 16, large: 24 };

export function isScaleName(name: string): name is ScaleName {
  return (SCALE_NAMES as readonly string[]).includes(name);
}

export function scaleOf(name: ScaleName): Scale {
  const f = FACTOR[name];
  const n = (v: number, min: number) => Math.max(min, Math.round(v * f));
  return {
    name,
    accounts: n(LARGE.accounts, 100),
    transactions: n(LARGE.transactions, 1_000),
    blocks: n(LARGE.blocks, 100),
    nfts: n(LARGE.nfts, 100),
    contractResults: n(LARGE.contractResults, 50),
    fungibleTokens: n(LARGE.fungibleTokens, 10),
    nftCollections: n(LARGE.nftCollections, 5),
    contracts: n(LARGE.contracts, 10),
    topics: n(LARGE.topics, 3),
    nodes: NODES[name],
    snapshots: SNAPSHOTS[name],
  };
}

/** The next smaller scale (the bench compares two sizes), or null for the smallest. */
export function smallerScale(name: ScaleName): ScaleName | null {
  const i = SCALE_NAMES.indexOf(name);
  return i > 0 ? SCALE_NAMES[i - 1]! : null;
}
