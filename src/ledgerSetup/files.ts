/** File contents (the fee schedule and exchange rate system files). */
import { bytes, int, isMissing, type SetupRow } from './values.js';
import type { SetupRows } from './rows.js';

export function fileData(rows: SetupRows, fixture: SetupRow): void {
  const entityIdValue = fixture.entity_id;
  const systemFile = entityIdValue === 111 || entityIdValue === 112;
  const data = fixture.file_data;
  rows.add('file_data', {
    consensus_timestamp: int(fixture.consensus_timestamp, 'filedata.consensus_timestamp'),
    entity_id: rows.id(entityIdValue),
    file_data: isMissing(data)
      ? null
      : typeof data === 'string'
        ? systemFile
          ? Buffer.from(data, 'hex')
          : Buffer.from(data, 'utf8')
        : bytes(data),
    transaction_type: isMissing(fixture.transaction_type) ? 17 : Number(fixture.transaction_type),
  });
}
