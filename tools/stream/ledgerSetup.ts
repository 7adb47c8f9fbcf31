/**
 * What the generated stream's ledger holds and, with `ledger`, creates before its steady mix: the
 * topics the messages go to, the account pool (CryptoCreate paid by the treasury 0.0.2 with an
 * ed25519 key, an auto-renew period and an initial balance the transfers never exhaust), a few
 * fungible tokens whose treasuries are the pool's first accounts, the association of each token with
 * the holders (part of the pool) and one transfer per holder of every token from the treasuries, so
 * that the token transfers after it move balances the holders have.
 */
import { bytes, int, message, sint, string } from './protoWriter.js';
import { keyOf } from './tokenTransactions.js';
import type { ItemParts } from './transactions.js';

export const LEDGER = {
  firstAccount: 1001n,
  accounts: 5000,
  firstTopic: 50001n,
  topics: 20,
  /** after the pool */
  firstToken: 6001n,
  tokens: 5,
  /** the pool's first accounts are the treasuries; the holders follow them */
  firstHolder: 1006n,
  holders: 500,
} as const;

const TREASURY = 2n;
const INITIAL_BALANCE = 1_000_000_000_000n;
const TOKEN_SUPPLY = 1_000_000_000_000_000n;
const DISTRIBUTED = 1_000_000_000n;
const AUTO_RENEW_SECONDS = 7_776_000n;

/** AccountID / TopicID / TokenID {shard 1, realm 2, num 3} in shard 0 realm 0 */
const id = (field: number, num: bigint) => message(field, int(3, num));

/** a TokenTransferList {token 1, transfers 2} of fungible amounts */
export function tokenTransferList(field: number, token: bigint, amounts: [bigint, bigint][]): Buffer {
  return message(field, id(1, token), ...amounts.map(([account, amount]) => message(2, id(1, account), sint(2, amount))));
}

const treasuryOf = (k: number) => LEDGER.firstAccount + BigInt(k);
const tokenOf = (k: number) => LEDGER.firstToken + BigInt(k);

/** The setup transactions, in order (their count: setupCount()). */
export function* setupSteps(): Generator<ItemParts> {
  for (let t = 0; t < LEDGER.topics; t++) {
    const topic = LEDGER.firstTopic + BigInt(t);
    // ConsensusCreateTopic: memo 1, autoRenewPeriod 6; the receipt's topicID 6
    yield {
      type: 'CONSENSUSCREATETOPIC',
      payer: TREASURY,
      data: Buffer.concat([string(1, `topic ${t}`), message(6, int(1, AUTO_RENEW_SECONDS))]),
      transfers: [],
      receipt: [id(6, topic)],
    };
  }
  for (let a = 0; a < LEDGER.accounts; a++) {
    const account = LEDGER.firstAccount + BigInt(a);
    // CryptoCreate: key 1, initialBalance 2, autoRenewPeriod 9; the receipt's accountID 2
    yield {
      type: 'CRYPTOCREATEACCOUNT',
      payer: TREASURY,
      data: Buffer.concat([bytes(1, keyOf(`account ${account}`)), int(2, INITIAL_BALANCE), message(9, int(1, AUTO_RENEW_SECONDS))]),
      transfers: [
        [TREASURY, -INITIAL_BALANCE],
        [account, INITIAL_BALANCE],
      ],
      receipt: [id(2, account)],
    };
  }
  for (let k = 0; k < LEDGER.tokens; k++) {
    const token = tokenOf(k);
    const treasury = treasuryOf(k);
    const symbol = `SYN${k}`;
    // TokenCreate: name 1, symbol 2, decimals 3, initialSupply 4, treasury 5, adminKey 6, supplyKey 10;
    // the receipt's tokenID 10, the supply to the treasury, which the network associates
    yield {
      type: 'TOKENCREATION',
      payer: treasury,
      data: Buffer.concat([
        string(1, `synthetic token ${k}`),
        string(2, symbol),
        int(3, 2),
        int(4, TOKEN_SUPPLY),
        id(5, treasury),
        bytes(6, keyOf(`${symbol} admin`)),
        bytes(10, keyOf(`${symbol} supply`)),
      ]),
      transfers: [],
      receipt: [id(10, token)],
      recordExtra: [tokenTransferList(11, token, [[treasury, TOKEN_SUPPLY]]), message(14, id(1, token), id(2, treasury))],
    };
  }
  const tokens = Array.from({ length: LEDGER.tokens }, (_, k) => tokenOf(k));
  for (let h = 0; h < LEDGER.holders; h++) {
    const holder = LEDGER.firstHolder + BigInt(h);
    // TokenAssociate: account 1, tokens 2
    yield {
      type: 'TOKENASSOCIATE',
      payer: holder,
      data: Buffer.concat([id(1, holder), ...tokens.map((t) => id(2, t))]),
      transfers: [],
    };
  }
  for (let h = 0; h < LEDGER.holders; h++) {
    const holder = LEDGER.firstHolder + BigInt(h);
    const lists = tokens.map((token, k) => ({
      token,
      amounts: [
        [treasuryOf(k), -DISTRIBUTED],
        [holder, DISTRIBUTED],
      ] as [bigint, bigint][],
    }));
    // CryptoTransfer: tokenTransfers 2, paid by the first treasury
    yield {
      type: 'CRYPTOTRANSFER',
      payer: treasuryOf(0),
      data: Buffer.concat(lists.map((l) => tokenTransferList(2, l.token, l.amounts))),
      transfers: [],
      recordExtra: lists.map((l) => tokenTransferList(11, l.token, l.amounts)),
    };
  }
}

/** How many transactions the setup writes before the steady mix. */
export function setupCount(): number {
  return LEDGER.topics + LEDGER.accounts + LEDGER.tokens + 2 * LEDGER.holders;
}
