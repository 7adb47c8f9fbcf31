/** A v6 sidecar (`_NN.rcd.gz`) belongs to its record file when SHA-384 of its gunzipped bytes is the hash the record file lists. */
import { sha384 } from '../hash.js';
import { contentOf } from '../readers/streamContent.js';
import type { RecordFile } from '../recordFile.js';
import { StreamFileError } from '../streamError.js';

const SIDECAR_ID = /_(\d+)\.rcd(\.gz)?$/;

/** Checks one downloaded sidecar against the record file's `sidecars` entry of the id its name gives. */
export function checkSidecar(file: RecordFile, sidecarName: string, downloaded: Buffer): void {
  const m = SIDECAR_ID.exec(sidecarName);
  if (!m) throw new StreamFileError(sidecarName, 'not a sidecar file name (…_NN.rcd.gz)');
  const id = Number(m[1]);
  const expected = file.sidecars.find((s) => s.id === id);
  if (!expected) throw new StreamFileError(sidecarName, `record file ${file.name} lists no sidecar ${id}`);
  const hash = sha384(contentOf(sidecarName, downloaded));
  if (!hash.equals(expected.hash)) {
    throw new StreamFileError(
      sidecarName,
      `sidecar hash ${hash.toString('hex')} differs from ${expected.hash.toString('hex')} listed by ${file.name}`,
    );
  }
}

/** The names of a record file's sidecars, as they sit in `sidecar/` next to it: `<name without .rcd.gz>_NN.rcd.gz`. */
export function sidecarNames(file: RecordFile): string[] {
  const stem = file.name.replace(/\.rcd(\.gz)?$/, '');
  return file.sidecars.map((s) => `${stem}_${String(s.id).padStart(2, '0')}.rcd.gz`);
}

/** A wrapped record block's inline sidecars: one per entry of `file.sidecars`, each hashing to its entry's hash. */
export function checkInlineSidecars(file: RecordFile, sidecarFiles: Buffer[]): void {
  if (sidecarFiles.length !== file.sidecars.length) {
    throw new StreamFileError(file.name, `${sidecarFiles.length} inline sidecar files for ${file.sidecars.length} listed sidecars`);
  }
  for (const [i, expected] of file.sidecars.entries()) {
    const hash = sha384(sidecarFiles[i]!);
    if (!hash.equals(expected.hash)) {
      throw new StreamFileError(
        file.name,
        `inline sidecar ${expected.id}: hash ${hash.toString('hex')} differs from ${expected.hash.toString('hex')}`,
      );
    }
  }
}
