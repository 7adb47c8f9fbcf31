/** The hash the nodes sign for an account balance file: SHA-384 of the CSV bytes, or of the gunzipped bytes of a `.pb.gz`. */
import { sha384 } from '../hash.js';
import { contentOf } from '../readers/streamContent.js';

export function balanceFileHash(name: string, downloaded: Buffer): Buffer {
  return sha384(contentOf(name, downloaded));
}
