/** record_file rows → Block objects. */
import { blockGasUsed } from '../../domain/block.js';
import { padHex } from '../../domain/bytes.js';
import { formatTimestamp } from '../../domain/timestamp.js';
import type { RecordFileRow } from './queries.js';

export interface BlockView {
  count: bigint;
  gas_used: bigint | null;
  hapi_version: string | null;
  hash: string;
  logs_bloom: string | null;
  name: string;
  number: bigint;
  previous_hash: string;
  size: number | null;
  timestamp: { from: string | null; to: string | null };
}

export function hapiVersion(row: Pick<RecordFileRow, 'hapi_version_major' | 'hapi_version_minor' | 'hapi_version_patch'>): string | null {
  const { hapi_version_major: major, hapi_version_minor: minor, hapi_version_patch: patch } = row;
  return major === null || minor === null || patch === null ? null : `${major}.${minor}.${patch}`;
}

export function blockView(row: RecordFileRow): BlockView {
  return {
    count: row.count,
    gas_used: blockGasUsed(row.gas_used),
    hapi_version: hapiVersion(row),
    hash: '0x' + row.hash,
    logs_bloom: row.logs_bloom === null ? null : padHex(row.logs_bloom, 512),
    name: row.name,
    number: row.index,
    previous_hash: '0x' + row.prev_hash,
    size: row.size,
    timestamp: { from: formatTimestamp(row.consensus_start), to: formatTimestamp(row.consensus_end) },
  };
}
