/**
 * Generated transactions as a record stream carries them: a `Transaction` (signedTransactionBytes
 * with a SignedTransaction of the body and a payer signature) and its `TransactionRecord`. Crypto
 * transfers between a pool of accounts, and consensus messages to a few topics, each paying its fee
 * to the submitting node and the fee collection account 0.0.98, as the network records them.
 */
import { createHash } from 'node:crypto';
import { Rng } from '../generate/random.js';
import { bytes, int, message, sint, string } from './protoWriter.js';

export interface GeneratedItem {
  consensusTimestamp: bigint;
  /** a serialized Transaction */
  transaction: Buffer;
  /** a serialized TransactionRecord */
  record: Buffer;
  type: 'CRYPTOTRANSFER' | 'CONSENSUSSUBMITMESSAGE';
}

const SUCCESS = 22;
const FEE_COLLECTOR = 98n;
const FIRST_ACCOUNT = 1001n;
const ACCOUNTS = 5000;
const FIRST_TOPIC = 50001n;
const TOPICS = 20;

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

export class TransactionGenerator {
  private readonly rng: Rng;
  private readonly topicSequence = new Map<bigint, bigint>();

  constructor(
    seed: number,
    /** node accounts (0.0.3 …) that submit the transactions */
    private readonly nodeAccounts: bigint[],
  ) {
    this.rng = new Rng(seed, 7);
  }

  next(consensusTimestamp: bigint): GeneratedItem {
    const payer = FIRST_ACCOUNT + BigInt(this.rng.int(ACCOUNTS));
    const node = this.rng.pick(this.nodeAccounts);
    const validStart = consensusTimestamp - BigInt(this.rng.between(1, 5_000)) * 1_000_000n - BigInt(this.rng.int(1_000_000));
    const transactionId = (field: number) => message(field, timestamp(1, validStart), accountId(2, payer));
    const nodeFee = BigInt(this.rng.between(5_000, 9_000));
    const networkFee = BigInt(this.rng.between(50_000, 90_000));
    const fee = nodeFee + networkFee;
    const isTransfer = this.rng.chance(0.8);
    let data: Buffer;
    let transfers: [bigint, bigint][];
    let receiptExtra: Buffer[] = [];
    if (isTransfer) {
      let receiver = FIRST_ACCOUNT + BigInt(this.rng.int(ACCOUNTS));
      if (receiver === payer) receiver = payer + 1n;
      const amount = BigInt(this.rng.between(1, 100_000_000));
      data = message(
        14,
        transferList(1, [
          [payer, -amount],
          [receiver, amount],
        ]),
      );
      transfers = [
        [node, nodeFee],
        [FEE_COLLECTOR, networkFee],
        [payer, -(amount + fee)],
        [receiver, amount],
      ];
    } else {
      const topic = FIRST_TOPIC + BigInt(this.rng.int(TOPICS));
      const sequence = (this.topicSequence.get(topic) ?? 0n) + 1n;
      this.topicSequence.set(topic, sequence);
      const text = Buffer.from(`message ${sequence} to topic 0.0.${topic}: ${this.rng.uint32().toString(16)}`);
      data = message(27, message(1, int(3, topic)), bytes(2, text));
      transfers = [
        [node, nodeFee],
        [FEE_COLLECTOR, networkFee],
        [payer, -fee],
      ];
      const runningHash = createHash('sha384').update(text).update(String(sequence)).digest();
      // TransactionReceipt: topicSequenceNumber 7, topicRunningHash 8, topicRunningHashVersion 9
      receiptExtra = [int(7, sequence), bytes(8, runningHash), int(9, 3)];
    }
    const memo = this.rng.chance(0.1) ? `synthetic ${this.rng.uint32()}` : '';
    const body = Buffer.concat([
      transactionId(1),
      accountId(2, node),
      int(3, fee + 100_000n),
      message(4, int(1, 120)),
      ...(memo ? [string(6, memo)] : []),
      data,
    ]);
    const signature = Buffer.alloc(64);
    for (let i = 0; i < 64; i += 4) signature.writeUInt32BE(this.rng.uint32(), i);
    const sigMap = message(2, message(1, bytes(1, signature.subarray(0, 6)), bytes(3, signature)));
    const signedTransactionBytes = Buffer.concat([bytes(1, body), sigMap]);
    const transaction = bytes(5, signedTransactionBytes);
    const record = Buffer.concat([
      message(1, int(1, SUCCESS), ...receiptExtra),
      bytes(2, createHash('sha384').update(signedTransactionBytes).digest()),
      timestamp(3, consensusTimestamp),
      transactionId(4),
      ...(memo ? [string(5, memo)] : []),
      int(6, fee),
      transferList(10, transfers),
    ]);
    return { consensusTimestamp, transaction, record, type: isTransfer ? 'CRYPTOTRANSFER' : 'CONSENSUSSUBMITMESSAGE' };
  }
}
