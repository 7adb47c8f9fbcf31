/**
 * Reads the current `token`, `token_account` and `nft` rows a file touches (one statement per table,
 * the keys as array parameters) and writes back what the file changed: the closed versions into the
 * history tables, the changed current rows inserted over the stored ones (one upsert statement each,
 * as columnInsert's arrays), which both PGlite and PostgreSQL run the same way.
 */
import type { Queryable } from '../../../db/db.js';
import { arrayLiteral, columnInsert } from '../../writers/columnInsert.js';
import type { TokenState } from './apply.js';
import { type NftRow, nftKey, type TokenAccountRow, type TokenRow, tokenAccountKey, tokenKey } from './rows.js';
import type { TouchedKeys } from './touched.js';
import { rangeText, type Versioned, type VersionedRows } from './versioned.js';

/** The columns of each table and their types, for the insert's array parameters (the mirror node's names). */
const TOKEN_COLUMNS = new Map([
  ['token_id', 'bigint'],
  ['created_timestamp', 'bigint'],
  ['decimals', 'bigint'],
  ['fee_schedule_key', 'bytea'],
  ['freeze_default', 'boolean'],
  ['freeze_key', 'bytea'],
  ['freeze_status', 'smallint'],
  ['initial_supply', 'bigint'],
  ['kyc_key', 'bytea'],
  ['kyc_status', 'smallint'],
  ['max_supply', 'bigint'],
  ['metadata', 'bytea'],
  ['metadata_key', 'bytea'],
  ['name', 'text'],
  ['pause_key', 'bytea'],
  ['pause_status', 'token_pause_status'],
  ['supply_key', 'bytea'],
  ['supply_type', 'token_supply_type'],
  ['symbol', 'text'],
  ['timestamp_range', 'int8range'],
  ['total_supply', 'bigint'],
  ['treasury_account_id', 'bigint'],
  ['type', 'token_type'],
  ['wipe_key', 'bytea'],
]);

const TOKEN_ACCOUNT_COLUMNS = new Map([
  ['account_id', 'bigint'],
  ['token_id', 'bigint'],
  ['associated', 'boolean'],
  ['automatic_association', 'boolean'],
  ['balance', 'bigint'],
  ['balance_timestamp', 'bigint'],
  ['created_timestamp', 'bigint'],
  ['freeze_status', 'smallint'],
  ['kyc_status', 'smallint'],
  ['timestamp_range', 'int8range'],
]);

const NFT_COLUMNS = new Map([
  ['token_id', 'bigint'],
  ['serial_number', 'bigint'],
  ['account_id', 'bigint'],
  ['created_timestamp', 'bigint'],
  ['deleted', 'boolean'],
  ['delegating_spender', 'bigint'],
  ['metadata', 'bytea'],
  ['spender', 'bigint'],
  ['timestamp_range', 'int8range'],
]);

const selectList = (columns: Map<string, string>) =>
  [...columns.keys()]
    .filter((c) => c !== 'timestamp_range')
    .concat('lower(timestamp_range) as range_lower', 'upper(timestamp_range) as range_upper')
    .join(', ');

type Loaded<R> = Omit<R, 'timestamp_range'> & { range_lower: bigint; range_upper: bigint | null };

function withRange<R extends Versioned>(row: Loaded<R>): R {
  const { range_lower, range_upper, ...rest } = row;
  return { ...rest, timestamp_range: { lower: range_lower, upper: range_upper } } as unknown as R;
}

const bigints = (values: Iterable<bigint>) => arrayLiteral([...values]);

/** Loads the rows `keys` name into `state`. */
export async function loadTouched(tx: Queryable, keys: TouchedKeys, state: TokenState): Promise<void> {
  if (keys.tokens.size) {
    const rows = await tx.query<Loaded<TokenRow>>(`select ${selectList(TOKEN_COLUMNS)} from token where token_id = any($1::bigint[])`, [
      bigints(keys.tokens),
    ]);
    for (const r of rows) state.tokens.load(tokenKey(r.token_id), withRange(r));
  }
  if (keys.tokenAccounts.size) {
    const pairs = [...keys.tokenAccounts.values()];
    const rows = await tx.query<Loaded<TokenAccountRow>>(
      `select ${selectList(TOKEN_ACCOUNT_COLUMNS)} from token_account
        where (account_id, token_id) in (select * from unnest($1::bigint[], $2::bigint[]))`,
      [bigints(pairs.map((p) => p[0])), bigints(pairs.map((p) => p[1]))],
    );
    for (const r of rows) state.tokenAccounts.load(tokenAccountKey(r.account_id, r.token_id), withRange(r));
  }
  if (keys.nfts.size || keys.treasuryMoves.size) {
    const pairs = [...keys.nfts.values()];
    const moves = [...keys.treasuryMoves.values()];
    const rows = await tx.query<Loaded<NftRow>>(
      `select ${selectList(NFT_COLUMNS)} from nft
        where (token_id, serial_number) in (select * from unnest($1::bigint[], $2::bigint[]))
           or (token_id, account_id) in (select * from unnest($3::bigint[], $4::bigint[]))`,
      [bigints(pairs.map((p) => p[0])), bigints(pairs.map((p) => p[1])), bigints(moves.map((m) => m[0])), bigints(moves.map((m) => m[1]))],
    );
    for (const r of rows) state.nfts.load(nftKey(r.token_id, r.serial_number), withRange(r));
  }
}

function toColumns<R extends Versioned>(row: R): Record<string, unknown> {
  return { ...(row as unknown as Record<string, unknown>), timestamp_range: rangeText(row.timestamp_range) };
}

/** Inserts the rows; `conflict`, when given, is appended to the statement (an upsert's `on conflict` clause). */
async function insert(tx: Queryable, table: string, columns: Map<string, string>, rows: Versioned[], conflict = ''): Promise<void> {
  if (rows.length === 0) return;
  const ordered = rows.map((row) => {
    const values = toColumns(row);
    return Object.fromEntries([...columns.keys()].map((c) => [c, values[c] ?? null]));
  });
  const { text, params } = columnInsert(table, columns, ordered);
  await tx.query(conflict ? `${text} ${conflict}` : text, params);
}

async function writeTable<R extends Versioned>(
  tx: Queryable,
  table: string,
  columns: Map<string, string>,
  rows: VersionedRows<R>,
  keyColumns: (keyof R & string)[],
): Promise<void> {
  await insert(tx, `${table}_history`, columns, rows.closed);
  // every changed row is written whole, over the stored one: one statement, whatever the file changed
  const keyList = keyColumns.map((c) => `"${c}"`).join(', ');
  const updates = [...columns.keys()]
    .filter((c) => !(keyColumns as string[]).includes(c))
    .map((c) => `"${c}" = excluded."${c}"`)
    .join(', ');
  await insert(tx, table, columns, rows.changedRows(), `on conflict (${keyList}) do update set ${updates}`);
}

/** Writes what the file changed. */
export async function writeChanges(tx: Queryable, state: TokenState): Promise<void> {
  await writeTable(tx, 'token', TOKEN_COLUMNS, state.tokens, ['token_id']);
  await writeTable(tx, 'token_account', TOKEN_ACCOUNT_COLUMNS, state.tokenAccounts, ['account_id', 'token_id']);
  await writeTable(tx, 'nft', NFT_COLUMNS, state.nfts, ['token_id', 'serial_number']);
}
