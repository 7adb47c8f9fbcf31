/**
 * Where stream files come from: a local folder laid out as the network's buckets are, or a bucket
 * through the S3 API. Keys are relative to the source's root and '/'-separated in both, so that
 * the ingester walks either the same way (`recordstreams/record0.0.3/…`, `0/3/record/…`,
 * `block/0000/…`).
 */
export interface StreamObject {
  /** relative to the source's root, '/'-separated, never starting with '/' */
  key: string;
  /** bytes, when the listing tells */
  size?: number;
}

export interface ListOptions {
  /** only keys that sort after this one (S3's StartAfter); the listing is in byte order of the keys */
  startAfter?: string;
  /** at most this many objects */
  limit?: number;
}

export interface StreamSource {
  /** where it reads, for logs and errors: a folder path or `s3://bucket/prefix`, never a secret */
  readonly description: string;
  /** the sub-folders directly under `prefix` ('' or ending in '/'), each as a key ending in '/', in byte order */
  folders(prefix: string): Promise<string[]>;
  /** the objects directly under `prefix` ('' or ending in '/'), not in sub-folders, in byte order of their keys */
  list(prefix: string, options?: ListOptions): Promise<StreamObject[]>;
  /** the whole object, or null when there is none under `key` */
  read(key: string): Promise<Buffer | null>;
  /** releases connections; the source is not used afterwards */
  close(): Promise<void>;
}

/** The source could not be listed or read (a network failure, a missing bucket, refused access): one line, never a secret. */
export class StreamSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamSourceError';
  }
}
