/**
 * The round-trip scenario: sections of transactions (each standing alone, on accounts it creates
 * itself, paid from the genesis treasury), played in order on one ledger model, which gives both
 * the stream items and the rows the importer writes for them.
 */
import { cryptoSection, transfersSection } from './crypto.js';
import { hollowSection } from './hollow.js';
import { FIRST_NODE, ScenarioLedger } from './ledger.js';
import { nftsSection, tokensSection } from './tokens.js';

export const SECTION_NAMES = ['transfers', 'crypto', 'hollow', 'tokens', 'nfts'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const SIZE_NAMES = ['ci', 'large'] as const;
export type SizeName = (typeof SIZE_NAMES)[number];

/** how much of each section: transfers and messages, accounts, hollow accounts, token transfers, NFT serials */
const SIZES: Record<SizeName, Record<SectionName, number>> = {
  ci: { transfers: 24, crypto: 8, hollow: 2, tokens: 6, nfts: 5 },
  large: { transfers: 2_000, crypto: 200, hollow: 50, tokens: 500, nfts: 200 },
};

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
  const ledger = new ScenarioLedger(options.seed, options.startNanos, nodes, options.itemsPerFile);
  for (const name of SECTION_NAMES) {
    if (!options.sections.includes(name)) continue;
    ledger.section = name;
    PLAY[name](ledger, SIZES[options.size][name]);
  }
  return ledger;
}
