/**
 * The source a SOURCE argument names: `s3://bucket/prefix` through the S3 API, anything else a local
 * folder. The S3 client is loaded only for an S3 source.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LocalSource } from './local.js';
import type { S3SourceOptions } from './s3.js';
import type { StreamSource } from './source.js';

export type StreamSourceOptions = Omit<S3SourceOptions, 'pageSize'>;

export async function openStreamSource(spec: string, options: StreamSourceOptions = {}): Promise<StreamSource> {
  if (spec.startsWith('s3://')) {
    const { S3Source } = await import('./s3.js');
    return S3Source.open(spec, options);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw new Error(`unsupported stream source ${spec}: give a folder or s3://bucket/prefix`);
  const folder = resolve(spec);
  const info = await stat(folder).catch(() => null);
  if (!info) throw new Error(`stream source folder ${folder} does not exist`);
  if (!info.isDirectory()) throw new Error(`stream source ${folder} is not a folder`);
  return new LocalSource(folder);
}
