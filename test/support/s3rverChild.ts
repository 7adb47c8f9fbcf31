/**
 * The child process of test/support/s3Server.ts: s3rver on a free port of 127.0.0.1, with the data
 * folder and buckets given as arguments (`DIR BUCKET...`); prints `listening on 127.0.0.1:PORT`.
 *
 * s3rver 3.7.1 prunes its folder walk below the first level under the listed prefix, so that a
 * ListObjectsV2 with a delimiter misses the sub-folders that hold only sub-folders (`demo/` above
 * `demo/0/0/record/`), which real S3 reports as common prefixes. Its walk is replaced, before its
 * store is loaded, by one that visits every folder; the store's own code then finds the common
 * prefixes of all keys.
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { posix } from 'node:path';

const require = createRequire(import.meta.url);
const utils = require('s3rver/lib/utils.js') as { walk: (dir: string) => Generator<string> };
utils.walk = function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = posix.join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
};
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ address: string; port: number }> };

const [directory, ...buckets] = process.argv.slice(2);
const { address, port } = await new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })),
}).run();
process.stdout.write(`listening on ${address}:${port}\n`);
