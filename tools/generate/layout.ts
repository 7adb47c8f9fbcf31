/**
 * Where the synthetic ledger's entities live: the system entities and their numbers, the busiest
 * accounts, and the number ranges of accounts, contracts, tokens, topics and files at a scale.
 */
import type { Scale } from './scales.js';

export const TREASURY = 2;
export const FIRST_NODE_ACCOUNT = 3;
export const FEE_COLLECTOR = 98;
export const STAKING_REWARD_ACCOUNT = 800;
export const NODE_REWARD_ACCOUNT = 801;
export const ADDRESS_BOOK_FILES = [101, 102] as const;
export const FEE_SCHEDULE_FILE = 111;
export const EXCHANGE_RATE_FILE = 112;
/** The token service's system contract (0x167): the contract of precompile child results. */
export const HTS_SYSTEM_CONTRACT = 359;
export const FIRST_USER_ACCOUNT = 1001;

/** The busiest accounts of the network, each with a role in the transaction mix. */
export const HUBS = { exchange: 1001, relay: 1002, messenger: 1003, marketplace: 1004, whale: 1005 } as const;
export const HUB_NUMS: readonly number[] = Object.values(HUBS);

/** Entity number ranges: system entities below 1001, then accounts, contracts, tokens, topics and files. */
export class Layout {
  readonly accounts: number;
  readonly newAccounts: number;
  readonly preAccounts: number;
  readonly firstContract: number;
  readonly contracts: number;
  readonly newContracts: number;
  readonly preContracts: number;
  readonly firstToken: number;
  readonly fungibleTokens: number;
  readonly nftCollections: number;
  readonly tokens: number;
  readonly firstTopic: number;
  readonly topics: number;
  readonly firstFile: number;
  readonly maxFiles: number;
  readonly end: number;
  readonly nodes: number;

  constructor(scale: Scale) {
    this.nodes = scale.nodes;
    this.accounts = scale.accounts;
    this.newAccounts = Math.round(scale.accounts * 0.05);
    this.preAccounts = scale.accounts - this.newAccounts;
    this.firstContract = FIRST_USER_ACCOUNT + scale.accounts;
    this.contracts = scale.contracts;
    this.newContracts = Math.max(1, Math.round(scale.contracts * 0.05));
    this.preContracts = scale.contracts - this.newContracts;
    this.firstToken = this.firstContract + scale.contracts;
    this.fungibleTokens = scale.fungibleTokens;
    this.nftCollections = scale.nftCollections;
    this.tokens = scale.fungibleTokens + scale.nftCollections;
    this.firstTopic = this.firstToken + this.tokens;
    this.topics = scale.topics;
    this.firstFile = this.firstTopic + scale.topics;
    this.maxFiles = Math.ceil(scale.contractResults * 0.02) + 8;
    this.end = this.firstFile + this.maxFiles;
  }

  nodeAccount(node: number): number {
    return FIRST_NODE_ACCOUNT + node;
  }

  tokenNum(index: number): number {
    return this.firstToken + index;
  }

  /** Token indexes below fungibleTokens are fungible, the rest NFT collections. */
  isNftToken(index: number): boolean {
    return index >= this.fungibleTokens;
  }

  systemAccounts(): number[] {
    return [
      TREASURY,
      ...Array.from({ length: this.nodes }, (_, i) => this.nodeAccount(i)),
      FEE_COLLECTOR,
      STAKING_REWARD_ACCOUNT,
      NODE_REWARD_ACCOUNT,
    ];
  }
}
