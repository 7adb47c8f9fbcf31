/**
 * A bucket (or a prefix of one) through the S3 API: AWS S3, GCS through its S3-compatible endpoint,
 * or any S3-compatible server. Keys are relative to the source's prefix, as the local source gives
 * them, and listings come in S3's byte order of the keys.
 */
import { GetObjectCommand, ListObjectsV2Command, type ListObjectsV2CommandOutput, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { type ListOptions, type StreamObject, type StreamSource, StreamSourceError } from './source.js';

export interface S3SourceOptions {
  /** the bucket's region; default: the AWS chain's (AWS_REGION, the profile), else us-east-1 */
  region?: string;
  /** an S3-compatible endpoint (`https://storage.googleapis.com`, a local server) instead of AWS's */
  endpoint?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` */
  forcePathStyle?: boolean;
  /** send `x-amz-request-payer: requester` (the network's buckets are requester-pays) */
  requesterPays?: boolean;
  /** send unsigned requests when the AWS credential chain finds no credentials (public buckets) */
  anonymous?: boolean;
  /** the Google Cloud project a GCS requester-pays bucket bills, sent as the `userProject` query parameter */
  gcsProject?: string;
  /** objects per ListObjectsV2 page (at most 1000; smaller only in tests) */
  pageSize?: number;
}

/** A failed S3 request: one line with the source, the bucket and key, and the cause, never a credential. */
export class S3SourceError extends StreamSourceError {
  constructor(message: string) {
    super(message);
    this.name = 'S3SourceError';
  }
}

const MAX_PAGE = 1000;
/** a try and two retries with the SDK's standard backoff; the ingester retries later on its own */
const MAX_ATTEMPTS = 3;
const CONNECTION_TIMEOUT_MS = 5_000;
/** the socket's idle time before a request is given up (a block file is a few MB at most) */
const REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_REGION = 'us-east-1';

/** `s3://bucket/prefix` → bucket and prefix ('' or ending in '/'); an Error for anything else. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`not an S3 location (s3://bucket/prefix): ${url}`);
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`not a bucket name: ${bucket} (in ${url})`);
  const path = (m[2] ?? '').replace(/^\/+/, '');
  return { bucket, prefix: path === '' || path.endsWith('/') ? path : `${path}/` };
}

/** Unsigned requests: the Smithy "no auth" scheme, so that no credential is looked up or sent. */
const ANONYMOUS: Partial<S3ClientConfig> = {
  httpAuthSchemes: [
    {
      schemeId: 'smithy.api#noAuth',
      identityProvider: () => async () => ({}),
      signer: { sign: async (request) => request },
    },
  ],
  httpAuthSchemeProvider: () => [{ schemeId: 'smithy.api#noAuth' }],
};

export class S3Source implements StreamSource {
  readonly description: string;
  private readonly payer: { RequestPayer?: 'requester' };
  private readonly pageSize: number;

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly root: string,
    options: S3SourceOptions,
  ) {
    this.description = `s3://${bucket}/${root}`;
    this.payer = options.requesterPays ? { RequestPayer: 'requester' } : {};
    this.pageSize = Math.max(1, Math.min(MAX_PAGE, options.pageSize ?? MAX_PAGE));
    const project = options.gcsProject;
    if (project) {
      // before signing, so that the signature covers it; GCS ignores x-amz-request-payer
      client.middlewareStack.add(
        (next) => async (args) => {
          const request = args.request as { query?: Record<string, string | string[] | null> };
          request.query = { ...request.query, userProject: project };
          return next(args);
        },
        { step: 'build', name: 'gcsUserProject' },
      );
    }
  }

  /** Opens `s3://bucket/prefix`; resolves the region and, with `anonymous`, whether credentials exist. */
  static async open(url: string, options: S3SourceOptions = {}): Promise<S3Source> {
    const { bucket, prefix } = parseS3Url(url);
    const config: S3ClientConfig = {
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      followRegionRedirects: true,
      maxAttempts: MAX_ATTEMPTS,
      retryMode: 'standard',
      requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      // S3-compatible endpoints (GCS among them) do not all accept the SDK's newer checksum headers;
      // the stream files carry their own hashes, which verification checks
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (options.region) config.region = options.region;
    let client = new S3Client(config);
    if (!options.region) {
      const region = await client.config.region().catch(() => undefined);
      if (!region) {
        client.destroy();
        client = new S3Client({ ...config, region: DEFAULT_REGION });
      }
    }
    if (options.anonymous && !(await hasCredentials(client))) {
      client.destroy();
      client = new S3Client({ ...config, region: await client.config.region(), ...ANONYMOUS });
    }
    return new S3Source(client, bucket, prefix, options);
  }

  async folders(prefix: string): Promise<string[]> {
    checkPrefix(prefix);
    const found = new Set<string>();
    for await (const page of this.pages(prefix, undefined, () => MAX_PAGE, `listing the folders under '${prefix}'`)) {
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) found.add(this.relative(p.Prefix));
    }
    return sortByBytes([...found]);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<StreamObject[]> {
    checkPrefix(prefix);
    const { startAfter, limit } = options;
    const objects: StreamObject[] = [];
    if (limit !== undefined && limit <= 0) return objects;
    const wanted = () => (limit === undefined ? MAX_PAGE : limit - objects.length);
    for await (const page of this.pages(prefix, startAfter, wanted, `listing '${prefix}'`)) {
      for (const o of page.Contents ?? []) {
        // consoles create empty objects named after folders (`recordstreams/`); a folder holds no such file
        if (!o.Key || o.Key.endsWith('/')) continue;
        objects.push(o.Size === undefined ? { key: this.relative(o.Key) } : { key: this.relative(o.Key), size: o.Size });
        if (objects.length === limit) return objects;
      }
    }
    return objects;
  }

  async read(key: string): Promise<Buffer | null> {
    checkKey(key);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.root + key, ...this.payer }));
      if (!answer.Body) return Buffer.alloc(0);
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (e) {
      if (isMissingKey(e)) return null;
      throw this.failure(`reading '${key}'`, e);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /**
   * ListObjectsV2 pages under `prefix` with delimiter '/', following continuation tokens; each page
   * asks for at most `wanted()` keys (sub-folders count among them, so the caller stops, not this).
   */
  private async *pages(
    prefix: string,
    startAfter: string | undefined,
    wanted: () => number,
    what: string,
  ): AsyncGenerator<ListObjectsV2CommandOutput> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.root + prefix,
            Delimiter: '/',
            MaxKeys: Math.max(1, Math.min(this.pageSize, wanted())),
            ...(token ? { ContinuationToken: token } : startAfter !== undefined ? { StartAfter: this.root + startAfter } : {}),
            ...this.payer,
          }),
        );
      } catch (e) {
        throw this.failure(what, e);
      }
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private relative(key: string): string {
    return key.startsWith(this.root) ? key.slice(this.root.length) : key;
  }

  private failure(what: string, e: unknown): S3SourceError {
    return new S3SourceError(`${this.description}: ${what} in bucket '${this.bucket}' failed: ${causeOf(e)}`);
  }
}

async function hasCredentials(client: S3Client): Promise<boolean> {
  try {
    const credentials = await client.config.credentials();
    return Boolean(credentials?.accessKeyId);
  } catch {
    return false;
  }
}

function isMissingKey(e: unknown): boolean {
  const name = (e as { name?: string }).name;
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  // a 404 without a body (some S3-compatible servers) is a missing key too, but not a missing bucket
  return name === 'NoSuchKey' || (status === 404 && name !== 'NoSuchBucket');
}

/** The cause in one line: the service's error code and message, or the network error; nothing from the request. */
export function causeOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const code = (e as { code?: string }).code;
  const inner = e instanceof AggregateError ? e.errors.map((x) => (x instanceof Error ? x.message : String(x))) : [];
  const message = [e.message, ...inner].filter((m) => m && m.trim() !== '').join('; ') || '(no message)';
  const label = status ? `${e.name} (HTTP ${status})` : code && !message.includes(code) ? code : e.name;
  return `${label}: ${message}`.replace(/\s+/g, ' ');
}

function checkPrefix(prefix: string): void {
  if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`a folder prefix ends with '/': ${prefix}`);
  checkKey(prefix);
}

/** The keys the local source accepts, so that both refuse the same ones. */
function checkKey(key: string): void {
  const segments = key.split('/').filter((s) => s !== '');
  if (key.startsWith('/') || segments.some((s) => s === '..' || s === '.' || s.includes('\\'))) {
    throw new Error(`not a key under the source's root: ${key}`);
  }
}

function sortByBytes(keys: string[]): string[] {
  return keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}
