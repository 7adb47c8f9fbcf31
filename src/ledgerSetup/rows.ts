import type { ShardRealm } from '../domain/entityId.js';
import type { ColumnValues } from './insert.js';
import type { SetupRow } from './values.js';

/** Where the converters of setup rows put table rows, with the shard and realm entity ids take. */
export interface SetupRows {
  readonly system: ShardRealm;
  /** An entity id of the setup (`shard.realm.num`, `realm.num` or a bare num), encoded; null stays null. */
  id(value: unknown, what?: string): bigint | null;
  add(table: string, row: ColumnValues): void;
}

/** Setup values win over defaults, but an explicit `undefined` never does. */
export function merged(defaults: SetupRow, row: SetupRow): SetupRow {
  const out: SetupRow = { ...defaults };
  for (const [k, v] of Object.entries(row)) if (v !== undefined) out[k] = v;
  return out;
}
