/** The stream source a SOURCE argument names: a local folder (an `s3://` source is not available in this build). */
import { statSync } from 'node:fs';
import { UserError } from '../../userError.js';
import { LocalSource } from './local.js';
import type { StreamSource } from './source.js';

export async function openStreamSource(spec: string): Promise<StreamSource> {
  if (/^s3:\/\//i.test(spec)) throw new UserError(`cannot read ${spec}: this build reads stream files from a local folder only`);
  let isFolder = false;
  try {
    isFolder = statSync(spec).isDirectory();
  } catch {
    // reported below
  }
  if (!isFolder) throw new UserError(`the stream source ${spec} is not a folder`);
  return new LocalSource(spec);
}
