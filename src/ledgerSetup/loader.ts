/**
 * Loads a ledger described in the reference's spec `setup` format (accounts, transactions, tokens,
 * blocks, contract results, … as JSON) into the database, with the reference loader's defaults and
 * conversions. The demo ledger is loaded through it, and so are the tools' and tests' fixtures.
 */
import type { Queryable } from '../db/db.js';
import type { ShardRealm } from '../domain/entityId.js';
import { recordFile } from './blocks.js';
import { contractAction, contractData, ethereumTransaction } from './contracts.js';
import { balance, entity, entityStake, tokenBalance } from './entities.js';
import { fileData } from './files.js';
import { insertRows, type ColumnValues } from './insert.js';
import type { SetupRows } from './rows.js';
import { nft, token, tokenAccount } from './tokens.js';
import { cryptoTransfer, entityTransaction, stakingRewardTransfer, transaction, transactionHash } from './transactions.js';
import { entityId, SetupError, type SetupRow } from './values.js';

export type Setup = Record<string, unknown>;

/** Setup keys that feed routes this service does not serve; they are accepted and ignored. */
const IGNORED_KEYS = new Set([
  'config',
  'features',
  'addressbooks',
  'nodes',
  'schedules',
  'topicmessages',
  'cryptoAllowances',
  'tokenAllowances',
  'customfees',
  'assessedcustomfees',
  'transactionsignatures',
  'contractStates',
  'nodestakes',
  'topicmessagelookups',
  'sql',
  'networkstakes',
  'stakingRewardTransfersAll',
  'tokenAirdrops',
  'hooks',
  'hookStorage',
]);

function rowsOf(setup: Setup, key: string): SetupRow[] {
  const v = setup[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SetupError(`setup.${key} must be an array`);
  return v as SetupRow[];
}

export class SetupLoader implements SetupRows {
  private readonly rows = new Map<string, ColumnValues[]>();

  constructor(
    private readonly db: Queryable,
    readonly system: ShardRealm,
  ) {}

  id = (v: unknown, what?: string) => entityId(v, this.system, what);

  add(table: string, row: ColumnValues): void {
    const list = this.rows.get(table) ?? [];
    list.push(row);
    this.rows.set(table, list);
  }

  /** Converts every supported key of `setup` into rows, then inserts them table by table. */
  async load(setup: Setup): Promise<void> {
    const each = (convert: (row: SetupRow) => unknown) => (rows: SetupRow[]) => {
      for (const row of rows) convert(row);
    };
    const handlers: Record<string, (rows: SetupRow[]) => void> = {
      accounts: each((x) => entity(this, x, 'accounts')),
      balances: each((x) => balance(this, x)),
      cryptotransfers: each((x) => cryptoTransfer(this, x)),
      contracts: each((x) => entity(this, x, 'contracts')),
      contractactions: each((x) => contractAction(this, x)),
      contractlogs: () => undefined,
      contractresults: () => undefined,
      contractStateChanges: () => undefined,
      entities: each((x) => entity(this, x, 'entities')),
      entityStakes: each((x) => entityStake(this, x)),
      entityTransactions: each((x) => entityTransaction(this, x)),
      ethereumtransactions: each((x) => ethereumTransaction(this, x)),
      filedata: each((x) => fileData(this, x)),
      nfts: each((x) => nft(this, x)),
      recordFiles: each((x) => recordFile(this, x)),
      stakingRewardTransfers: each((x) => stakingRewardTransfer(this, x)),
      tokens: each((x) => token(this, x)),
      tokenaccounts: each((x) => tokenAccount(this, x)),
      tokenBalance: each((x) => tokenBalance(this, x)),
      transactions: each((x) => transaction(this, x)),
      transactionhashes: each((x) => transactionHash(this, x)),
    };
    for (const key of Object.keys(setup)) {
      if (!(key in handlers) && !IGNORED_KEYS.has(key)) throw new SetupError(`unsupported setup key: ${key}`);
    }
    for (const [key, handler] of Object.entries(handlers)) handler(rowsOf(setup, key));
    contractData(this, rowsOf(setup, 'contractresults'), rowsOf(setup, 'contractlogs'), rowsOf(setup, 'contractStateChanges'));

    for (const [table, rows] of this.rows) {
      // rows of one table may differ in columns when optional ones are omitted; group by shape
      const byShape = new Map<string, ColumnValues[]>();
      for (const row of rows) {
        const shape = Object.keys(row).join(',');
        byShape.set(shape, [...(byShape.get(shape) ?? []), row]);
      }
      for (const group of byShape.values()) await insertRows(this.db, table, group);
    }
    this.rows.clear();
  }
}
