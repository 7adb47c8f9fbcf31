/**
 * A private S3-compatible server for the tests: s3rver (a development dependency) in a child Node on
 * a free port of 127.0.0.1, with its data in a temporary folder, behind a small forwarder that records
 * each request's method, path and headers (to see what a client really sent: the requester-pays
 * header, a signature or none).
 *
 * s3rver ciphers its ListObjectsV2 continuation tokens with DES, which OpenSSL 3 offers only in its
 * legacy provider: the child runs with --openssl-legacy-provider, or every second page would fail.
 * The child (s3rverChild.ts) also mends s3rver's listing of sub-folders.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** s3rver's built-in account */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface TestS3Server {
  /** the forwarder's address: give it to the clients */
  endpoint: string;
  requests: RecordedRequest[];
  /** uploads every file under `folder` as `keyPrefix` + its path relative to `folder` ('/'-separated) */
  upload(bucket: string, folder: string, keyPrefix?: string): Promise<number>;
  put(bucket: string, key: string, body: Buffer): Promise<void>;
  stop(): Promise<void>;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on [^\s:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening: ${err.trim()}`)));
    child.once('error', reject);
  });
}

function forwarder(port: number, requests: RecordedRequest[]): Server {
  return createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
}

/** Starts s3rver with the given buckets (empty). */
export async function startS3Server(buckets: string[]): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'lqs-s3rver-'));
  const main = fileURLToPath(new URL('./s3rverChild.js', import.meta.url));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', main, directory, ...buckets], { stdio: ['ignore', 'pipe', 'pipe'] });
  let port: number;
  try {
    port = await listeningPort(child);
  } catch (e) {
    child.kill();
    await rm(directory, { recursive: true, force: true });
    throw e;
  }
  const requests: RecordedRequest[] = [];
  const proxy = forwarder(port, requests);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const uploader = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  let stopped = false;
  return {
    endpoint,
    requests,
    async upload(bucket, folder, keyPrefix = '') {
      const files = await filesUnder(folder);
      for (const file of files) {
        const key = keyPrefix + relative(folder, file).split(sep).join('/');
        await uploader.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file) }));
      }
      return files.length;
    },
    async put(bucket, key, body) {
      await uploader.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      uploader.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await rm(directory, { recursive: true, force: true });
    },
  };
}
