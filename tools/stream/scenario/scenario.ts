/**
 * The round-trip scenario: sections of transactions (each standing alone, on accounts it creates
 * itself, paid from the genesis treasury), played in order on one ledger model, which gives both
 * the stream items and the rows the importer writes for them.
 */
import { cryptoSection, transfersSection } from './crypto.js';
import { hollowSection } from './hollow.js';
import { STEP_NS as DEFAULT_STEP_NS, FIRST_NODE, ScenarioLedger } from './ledger.js';
import { nftsSection, tokensSection } from './tokens.js';

export const SECTION_NAMES = ['transfers', 'crypto', 'hollow', 'tokens', 'nfts'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const SIZE_NAMES = ['ci', 'large', 'bench'] as const;
export type SizeName = (typeof SIZE_NAMES)[number];

/** how much of each section: transfers and messages, accounts, hollow accounts, token transfers, NFT serials */
const SIZES: Record<SizeName, Record<SectionName, number>> = {
  ci: { transfers: 24, crypto: 8, hollow: 2, tokens: 6, nfts: 5 },
  large: { transfers: 2_000, crypto: 200, hollow: 50, tokens: 500, nfts: 200 },
  // ten times large: enough rows for `bench pair` to measure the API on (roundtrip --keep)
  bench: { transfers: 20_000, crypto: 2_000, hollow: 500, tokens: 5_000, nfts: 2_000 },
};

/**
 * Time between two top-level transactions. The bench size's 35,000 transactions at the default
 * 40 ms would span 23 minutes, past the ingester's first balance snapshot (17 minutes in), which
 * the model does not write: at 20 ms they span 12.
 */
const STEP_NS: Record<SizeName, bigint> = { ci: DEFAULT_STEP_NS, large: DEFAULT_STEP_NS, bench: 20_000_000n };

const PLAY: Record<SectionName, (ledger: ScenarioLedger, n: number) => void> = {
  transfers: transfersSection,
  crypto: cryptoSection,
  hollow: hollowSection,
  tokens: tokensSection,
  nfts: nftsSection,
};

export interface ScenarioOptions {
  sections: readonly SectionName[];
  size: SizeName;
  seed: number;
  startNanos: bigint;
  nodes: number;
  /** a record file is closed once it holds this many items (whole transaction groups) */
  itemsPerFile: number;
}

/** Plays the chosen sections (in the order of SECTION_NAMES) on a new ledger. */
export function playScenario(options: ScenarioOptions): ScenarioLedger {
  const nodes = Array.from({ length: options.nodes }, (_, i) => FIRST_NODE + BigInt(i));
  const ledger = new ScenarioLedger(options.seed, options.startNanos, nodes, options.itemsPerFile, undefined, STEP_NS[options.size]);
  for (const name of SECTION_NAMES) {
    if (!options.sections.includes(name)) continue;
    ledger.section = name;
    PLAY[name](ledger, SIZES[options.size][name]);
  }
  return ledger;
}
