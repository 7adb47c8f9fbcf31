/** Record files (blocks). */
import { bytes, int, intOrNull, isMissing, type SetupRow } from './values.js';
import { merged, type SetupRows } from './rows.js';

export function recordFile(rows: SetupRows, fixture: SetupRow): void {
  const r = merged(
    {
      bytes: '0x010102020303',
      consensus_start: 1628751572000852000n,
      consensus_end: 1628751573995691000n,
      count: 1200,
      digest_algorithm: 0,
      file_hash: 'dee34bdd8bbe32fdb53ce7e3cf764a0495fa5e93b15ca567208cfb384231301bedf821de07b0d8dc3fb55c5b3c90ac61',
      gas_used: 0,
      hapi_version_major: 0,
      hapi_version_minor: 11,
      hapi_version_patch: 0,
      hash: 'ed55d98d53fd55c9caf5f61affe88cd2978d37128ec54af5dace29b6fd271cbd079ebe487bda5f227087e2638b1100cf',
      index: 123456789,
      load_start: 1629298233,
      load_end: 1629298236,
      logs_bloom: '',
      name: '2021-08-12T06_59_32.000852000Z.rcd',
      prev_hash: '0'.repeat(96),
      size: 6,
      version: 5,
    },
    fixture,
  );
  const fileBytes = bytes(r.bytes);
  rows.add('record_file', {
    bytes: fileBytes,
    consensus_end: int(r.consensus_end),
    consensus_start: int(r.consensus_start),
    count: int(r.count),
    digest_algorithm: Number(r.digest_algorithm),
    file_hash: isMissing(r.file_hash) ? null : String(r.file_hash),
    gas_used: intOrNull(r.gas_used),
    hapi_version_major: isMissing(r.hapi_version_major) ? null : Number(r.hapi_version_major),
    hapi_version_minor: isMissing(r.hapi_version_minor) ? null : Number(r.hapi_version_minor),
    hapi_version_patch: isMissing(r.hapi_version_patch) ? null : Number(r.hapi_version_patch),
    hash: String(r.hash),
    index: int(r.index),
    load_end: intOrNull(r.load_end),
    load_start: intOrNull(r.load_start),
    logs_bloom: bytes(r.logs_bloom),
    name: String(r.name),
    prev_hash: String(r.prev_hash),
    size: fileBytes !== null ? fileBytes.length : isMissing(r.size) ? null : Number(r.size),
    version: Number(r.version),
  });
}
