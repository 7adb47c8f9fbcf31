import { gunzipSync } from 'node:zlib';
import { StreamFileError } from '../streamError.js';

/** The bytes of a downloaded stream file as its hashes see them: gunzipped when the name ends in `.gz`. */
export function contentOf(name: string, downloaded: Buffer): Buffer {
  if (!name.endsWith('.gz')) return downloaded;
  try {
    return gunzipSync(downloaded);
  } catch (e) {
    throw new StreamFileError(name, `not a valid gzip file (${(e as Error).message})`);
  }
}
