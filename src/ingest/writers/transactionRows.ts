/**
 * The per-transaction rows of one accepted file: `transaction`, `crypto_transfer`, `token_transfer`,
 * `staking_reward_transfer`, and `file_data` for the address book and node detail files
 * (0.0.101, 0.0.102, 0.0.111, 0.0.112), shaped as the importer writes them.
 */
import { encodeEntityId } from '../../domain/entityId.js';
import { sha384 } from '../hash.js';
import { type CryptoTransferBody, readCryptoTransferBody } from '../proto/cryptoTransferBody.js';
import { SPURIOUS_TRANSFERS_BEFORE, SUCCESSFUL } from '../errata/spuriousTransfers.js';
import { hbarApproval, nftApproval, tokenApproval } from './approvals.js';
import {
  type OutcomeDetails,
  readBlockOutcome,
  type TokenTransfers,
  readRecordOutcome,
  readTransactionBody,
  type TransactionBodyDetails,
} from '../proto/transactionDetails.js';
import type { BlockTransaction, RecordItem } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';
import type { ColumnValues } from '../../ledgerSetup/insert.js';

const SUCCESS = 22;
const FILE_DATA_TYPES = new Set([16, 17, 19]);
const FILE_DATA_FILES = new Set([101n, 102n, 111n, 112n]);
/** types whose target comes from the receipt: the entity they create */
const CREATE_TYPES = new Set([8, 11, 17, 24, 29, 42]);

export interface TransactionRows {
  transaction: ColumnValues[];
  cryptoTransfer: ColumnValues[];
  tokenTransfer: ColumnValues[];
  stakingRewardTransfer: ColumnValues[];
  fileData: ColumnValues[];
  /** every transaction of the file in consensus order, for the state appliers (src/ingest/state) */
  decoded: DecodedTransaction[];
}

export function emptyRows(): TransactionRows {
  return { transaction: [], cryptoTransfer: [], tokenTransfer: [], stakingRewardTransfer: [], fileData: [], decoded: [] };
}

export interface DecodedTransaction {
  consensusTimestamp: bigint;
  parentConsensusTimestamp: bigint | null;
  body: TransactionBodyDetails;
  outcome: OutcomeDetails;
  index: number;
  /** the serialized TransactionRecord (record streams and wrapped record blocks); null for native blocks */
  record: Buffer | null;
}

type Decoded = DecodedTransaction;

function entityOf(d: Decoded): bigint | null {
  if (CREATE_TYPES.has(d.body.type)) return d.outcome.receiptEntityId;
  return d.body.targetEntityId ?? d.outcome.receiptEntityId;
}

/**
 * The importer's `nft_transfer` JSON: one object per NFT moved, in the record's order, ids as
 * numbers (written exactly, past 2^53 too), no sender for a mint, no receiver for a burn,
 * `is_approval` from the body (see approvals.ts).
 */
export function nftTransferJson(lists: readonly TokenTransfers[], asked: CryptoTransferBody | null): string | null {
  const parts: string[] = [];
  for (const list of lists) {
    for (const t of list.nftTransfers) {
      parts.push(
        `{"is_approval":${nftApproval(asked, list.tokenId, t)},"receiver_account_id":${t.receiverAccountId ?? 'null'},` +
          `"sender_account_id":${t.senderAccountId ?? 'null'},"serial_number":${t.serialNumber},"token_id":${list.tokenId}}`,
      );
    }
  }
  return parts.length === 0 ? null : `[${parts.join(',')}]`;
}

function addRows(rows: TransactionRows, d: Decoded, shardRealm: { shard: bigint; realm: bigint }): void {
  const { body, outcome, consensusTimestamp: ts } = d;
  const payer = body.payerAccountId;
  const entityId = entityOf(d);
  rows.decoded.push(d);
  const asked = readCryptoTransferBody(body);
  const failedTransfer = asked !== null && !SUCCESSFUL.has(outcome.result) && ts < SPURIOUS_TRANSFERS_BEFORE;
  rows.transaction.push({
    consensus_timestamp: ts,
    type: body.type,
    result: outcome.result,
    payer_account_id: payer,
    valid_start_ns: body.validStartNs,
    valid_duration_seconds: body.validDurationSeconds,
    node_account_id: body.nodeAccountId,
    entity_id: entityId,
    initial_balance: body.initialBalance,
    max_fee: body.maxFee,
    charged_tx_fee: outcome.chargedFee,
    memo: body.memo,
    transaction_hash: outcome.transactionHash,
    scheduled: body.scheduled,
    nonce: body.nonce,
    parent_consensus_timestamp: d.parentConsensusTimestamp,
    index: d.index,
    nft_transfer: nftTransferJson(outcome.tokenTransfers, asked),
  });
  for (const t of outcome.transfers) {
    rows.cryptoTransfer.push({
      consensus_timestamp: ts,
      entity_id: t.accountId,
      amount: t.amount,
      payer_account_id: payer,
      is_approval: hbarApproval(asked, t, failedTransfer),
    });
  }
  for (const list of outcome.tokenTransfers) {
    for (const t of list.transfers) {
      rows.tokenTransfer.push({
        consensus_timestamp: ts,
        token_id: list.tokenId,
        account_id: t.accountId,
        amount: t.amount,
        payer_account_id: payer,
        is_approval: tokenApproval(asked, list.tokenId, t),
      });
    }
  }
  for (const r of outcome.stakingRewards) {
    rows.stakingRewardTransfer.push({ consensus_timestamp: ts, account_id: r.accountId, amount: r.amount, payer_account_id: payer });
  }
  if (outcome.result === SUCCESS && FILE_DATA_TYPES.has(body.type) && entityId !== null && body.fileContents !== null) {
    const fileNum = isSystemFile(entityId, shardRealm);
    if (fileNum)
      rows.fileData.push({ consensus_timestamp: ts, entity_id: entityId, file_data: body.fileContents, transaction_type: body.type });
  }
}

function isSystemFile(entityId: bigint, { shard, realm }: { shard: bigint; realm: bigint }): boolean {
  for (const num of FILE_DATA_FILES) if (encodeEntityId(shard, realm, num) === entityId) return true;
  return false;
}

function bodyOf(file: string, bytes: Uint8Array, signed: boolean, position: number): TransactionBodyDetails {
  try {
    const body = readTransactionBody(bytes, signed);
    if (body) return body;
  } catch (e) {
    throw new StreamFileError(file, `item ${position}: malformed transaction (${(e as Error).message})`);
  }
  throw new StreamFileError(file, `item ${position}: a transaction without a body`);
}

/** The rows of a record file's items (record streams and wrapped record blocks). */
export function recordItemRows(file: string, items: RecordItem[], shardRealm: { shard: bigint; realm: bigint }): TransactionRows {
  const rows = emptyRows();
  for (const [index, item] of items.entries()) {
    const body = bodyOf(file, item.transactionBytes, false, index);
    let outcome: OutcomeDetails;
    try {
      outcome = readRecordOutcome(item.recordBytes ?? Buffer.alloc(0));
    } catch (e) {
      throw new StreamFileError(file, `item ${index}: malformed TransactionRecord (${(e as Error).message})`);
    }
    addRows(
      rows,
      {
        consensusTimestamp: item.consensusTimestamp,
        parentConsensusTimestamp: item.parentConsensusTimestamp,
        body,
        outcome,
        index,
        record: item.recordBytes,
      },
      shardRealm,
    );
  }
  return rows;
}

/** The rows of a native block's transactions (the transaction hash is SHA-384 of the signed transaction). */
export function blockTransactionRows(
  file: string,
  transactions: BlockTransaction[],
  shardRealm: { shard: bigint; realm: bigint },
): TransactionRows {
  const rows = emptyRows();
  for (const [index, tx] of transactions.entries()) {
    const body = bodyOf(file, tx.signedTransactionBytes, true, index);
    let outcome: OutcomeDetails;
    try {
      outcome = readBlockOutcome(tx.resultBytes);
    } catch (e) {
      throw new StreamFileError(file, `transaction ${index}: malformed TransactionResult (${(e as Error).message})`);
    }
    outcome.transactionHash = sha384(tx.signedTransactionBytes);
    addRows(
      rows,
      {
        consensusTimestamp: tx.consensusTimestamp,
        parentConsensusTimestamp: outcome.parentConsensusTimestamp,
        body,
        outcome,
        index,
        record: null,
      },
      shardRealm,
    );
  }
  return rows;
}
