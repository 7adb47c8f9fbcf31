/**
 * Generated transactions as a record stream carries them: a `Transaction` (signedTransactionBytes
 * with a SignedTransaction of the body and a payer signature) and its `TransactionRecord`. Crypto
 * transfers between a pool of accounts, and consensus messages to a few topics, each paying its fee
 * to the submitting node and the fee collection account 0.0.98, as the network records them.
 *
 * With `ledger` (ledgerSetup.ts) the stream first creates what it uses, so that the ingester's state
 * appliers have rows to change: the topics, the account pool (CryptoCreate with a key and an initial
 * balance), a few fungible tokens, their association with part of the pool and a first distribution
 * of each; then the steady mix also moves those tokens between their holders.
 */
import { createHash } from 'node:crypto';
import { Rng } from '../generate/random.js';
import { bytes, int, message, sint, string } from './protoWriter.js';
import { LEDGER, setupSteps, tokenTransferList } from './ledgerSetup.js';

export type GeneratedType =
  | 'CRYPTOTRANSFER'
  | 'CONSENSUSSUBMITMESSAGE'
  | 'CRYPTOCREATEACCOUNT'
  | 'CONSENSUSCREATETOPIC'
  | 'TOKENCREATION'
  | 'TOKENASSOCIATE';

export interface GeneratedItem {
  consensusTimestamp: bigint;
  /** a serialized Transaction */
  transaction: Buffer;
  /** a serialized TransactionRecord */
  record: Buffer;
  type: GeneratedType;
}

const SUCCESS = 22;
const FEE_COLLECTOR = 98n;
const { firstAccount: FIRST_ACCOUNT, accounts: ACCOUNTS, firstTopic: FIRST_TOPIC, topics: TOPICS } = LEDGER;

/** TransactionBody's field of each kind's data */
const BODY_FIELD: Record<GeneratedType, number> = {
  CRYPTOCREATEACCOUNT: 11,
  CRYPTOTRANSFER: 14,
  CONSENSUSCREATETOPIC: 24,
  CONSENSUSSUBMITMESSAGE: 27,
  TOKENCREATION: 29,
  TOKENASSOCIATE: 40,
};

function timestamp(field: number, nanos: bigint): Buffer {
  const seconds = nanos / 1_000_000_000n;
  const rest = nanos % 1_000_000_000n;
  return message(field, int(1, seconds), ...(rest === 0n ? [] : [int(2, rest)]));
}

function accountId(field: number, num: bigint): Buffer {
  return message(field, int(3, num));
}

function transferList(field: number, amounts: [bigint, bigint][]): Buffer {
  return message(field, ...amounts.map(([account, amount]) => message(1, accountId(1, account), sint(2, amount))));
}

/** What differs between kinds; the fees, ids, signature and hash are added alike. */
export interface ItemParts {
  type: GeneratedType;
  payer: bigint;
  /** the kind's body message, without its field tag */
  data: Buffer;
  /** hbar transfers besides the fees */
  transfers: [bigint, bigint][];
  /** receipt fields after the status */
  receipt?: Buffer[];
  /** record fields after the transfer list (token transfer lists 11, automatic associations 14) */
  recordExtra?: Buffer[];
}

export interface GeneratorOptions {
  /** create the topics, accounts and tokens first, and move tokens too (ledgerSetup.ts) */
  ledger?: boolean;
}

export class TransactionGenerator {
  private readonly rng: Rng;
  private readonly topicSequence = new Map<bigint, bigint>();
  private readonly setup: Iterator<ItemParts> | null;
  private readonly ledger: boolean;

  constructor(
    seed: number,
    /** node accounts (0.0.3 …) that submit the transactions */
    private readonly nodeAccounts: bigint[],
    options: GeneratorOptions = {},
  ) {
    this.rng = new Rng(seed, 7);
    this.ledger = options.ledger === true;
    this.setup = this.ledger ? setupSteps()[Symbol.iterator]() : null;
  }

  next(consensusTimestamp: bigint): GeneratedItem {
    const step = this.setup?.next();
    if (step && !step.done) return this.item(consensusTimestamp, step.value, '');
    let payer = FIRST_ACCOUNT + BigInt(this.rng.int(ACCOUNTS));
    const node = this.rng.pick(this.nodeAccounts);
    const validStart = consensusTimestamp - BigInt(this.rng.between(1, 5_000)) * 1_000_000n - BigInt(this.rng.int(1_000_000));
    const nodeFee = BigInt(this.rng.between(5_000, 9_000));
    const networkFee = BigInt(this.rng.between(50_000, 90_000));
    const isTransfer = this.rng.chance(0.8);
    let parts: ItemParts;
    if (isTransfer && this.ledger && this.rng.chance(0.25)) {
      // a token transfer between two holders, paid by the sender
      const token = LEDGER.firstToken + BigInt(this.rng.int(LEDGER.tokens));
      const sender = LEDGER.firstHolder + BigInt(this.rng.int(LEDGER.holders));
      let receiver = LEDGER.firstHolder + BigInt(this.rng.int(LEDGER.holders));
      if (receiver === sender) receiver = sender === LEDGER.firstHolder ? sender + 1n : sender - 1n;
      const amount = BigInt(this.rng.between(1, 10_000));
      const amounts: [bigint, bigint][] = [
        [sender, -amount],
        [receiver, amount],
      ];
      payer = sender;
      parts = {
        type: 'CRYPTOTRANSFER',
        payer,
        data: tokenTransferList(2, token, amounts),
        transfers: [],
        recordExtra: [tokenTransferList(11, token, amounts)],
      };
    } else if (isTransfer) {
      let receiver = FIRST_ACCOUNT + BigInt(this.rng.int(ACCOUNTS));
      if (receiver === payer) receiver = payer + 1n;
      const amount = BigInt(this.rng.between(1, 100_000_000));
      parts = {
        type: 'CRYPTOTRANSFER',
        payer,
        data: transferList(1, [
          [payer, -amount],
          [receiver, amount],
        ]),
        transfers: [
          [payer, -amount],
          [receiver, amount],
        ],
      };
    } else {
      const topic = FIRST_TOPIC + BigInt(this.rng.int(TOPICS));
      const sequence = (this.topicSequence.get(topic) ?? 0n) + 1n;
      this.topicSequence.set(topic, sequence);
      const text = Buffer.from(`message ${sequence} to topic 0.0.${topic}: ${this.rng.uint32().toString(16)}`);
      const runningHash = createHash('sha384').update(text).update(String(sequence)).digest();
      parts = {
        type: 'CONSENSUSSUBMITMESSAGE',
        payer,
        data: Buffer.concat([message(1, int(3, topic)), bytes(2, text)]),
        transfers: [],
        // TransactionReceipt: topicSequenceNumber 7, topicRunningHash 8, topicRunningHashVersion 9
        receipt: [int(7, sequence), bytes(8, runningHash), int(9, 3)],
      };
    }
    const memo = this.rng.chance(0.1) ? `synthetic ${this.rng.uint32()}` : '';
    return this.build(consensusTimestamp, parts, { node, validStart, nodeFee, networkFee }, memo);
  }

  private item(consensusTimestamp: bigint, parts: ItemParts, memo: string): GeneratedItem {
    const node = this.rng.pick(this.nodeAccounts);
    const validStart = consensusTimestamp - BigInt(this.rng.between(1, 5_000)) * 1_000_000n;
    const nodeFee = BigInt(this.rng.between(5_000, 9_000));
    const networkFee = BigInt(this.rng.between(50_000, 90_000));
    return this.build(consensusTimestamp, parts, { node, validStart, nodeFee, networkFee }, memo);
  }

  private build(
    consensusTimestamp: bigint,
    parts: ItemParts,
    paid: { node: bigint; validStart: bigint; nodeFee: bigint; networkFee: bigint },
    memo: string,
  ): GeneratedItem {
    const { payer } = parts;
    const { node, validStart, nodeFee, networkFee } = paid;
    const fee = nodeFee + networkFee;
    const transactionId = (field: number) => message(field, timestamp(1, validStart), accountId(2, payer));
    // the payer's own transfer and its fee are one amount, as the network records them
    const payerAmount = parts.transfers.filter(([a]) => a === payer).reduce((sum, [, amount]) => sum + amount, 0n);
    const transfers: [bigint, bigint][] = [
      [node, nodeFee],
      [FEE_COLLECTOR, networkFee],
      [payer, payerAmount - fee],
      ...parts.transfers.filter(([a]) => a !== payer),
    ];
    const body = Buffer.concat([
      transactionId(1),
      accountId(2, node),
      int(3, fee + 100_000n),
      message(4, int(1, 120)),
      ...(memo ? [string(6, memo)] : []),
      bytes(BODY_FIELD[parts.type], parts.data),
    ]);
    const signature = Buffer.alloc(64);
    for (let i = 0; i < 64; i += 4) signature.writeUInt32BE(this.rng.uint32(), i);
    const sigMap = message(2, message(1, bytes(1, signature.subarray(0, 6)), bytes(3, signature)));
    const signedTransactionBytes = Buffer.concat([bytes(1, body), sigMap]);
    const transaction = bytes(5, signedTransactionBytes);
    const record = Buffer.concat([
      message(1, int(1, SUCCESS), ...(parts.receipt ?? [])),
      bytes(2, createHash('sha384').update(signedTransactionBytes).digest()),
      timestamp(3, consensusTimestamp),
      transactionId(4),
      ...(memo ? [string(5, memo)] : []),
      int(6, fee),
      transferList(10, transfers),
      ...(parts.recordExtra ?? []),
    ]);
    return { consensusTimestamp, transaction, record, type: parts.type };
  }
}
