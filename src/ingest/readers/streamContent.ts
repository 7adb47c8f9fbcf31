import { gunzipSync } from 'node:zlib';
import { StreamFileError } from '../streamError.js';

/**
 * The bytes of a downloaded stream file as its hashes see them: gunzipped when the name ends in `.gz`.
 * zlib stops quietly at bytes after the last gzip member; those are refused as appended garbage.
 */
export function contentOf(name: string, downloaded: Buffer): Buffer {
  if (!name.endsWith('.gz')) return downloaded;
  let result: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    result = gunzipSync(downloaded, { info: true }) as unknown as typeof result;
  } catch (e) {
    throw new StreamFileError(name, `not a valid gzip file (${(e as Error).message})`);
  }
  const extra = downloaded.length - result.engine.bytesWritten;
  if (extra > 0) throw new StreamFileError(name, `${extra} unexpected bytes after the end of the gzip content`);
  return result.buffer;
}
