/**
 * A local folder laid out as the network's buckets are. Listings are sorted by the keys' bytes, as
 * S3 lists them, so that both sources yield files in the same order.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { ListOptions, StreamObject, StreamSource } from './source.js';

export class LocalSource implements StreamSource {
  readonly description: string;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.description = this.root;
  }

  async folders(prefix: string): Promise<string[]> {
    const entries = await this.entries(prefix);
    return sortByBytes(entries.filter((e) => e.isDirectory()).map((e) => `${prefix}${e.name}/`));
  }

  async list(prefix: string, options: ListOptions = {}): Promise<StreamObject[]> {
    const entries = await this.entries(prefix);
    let keys = sortByBytes(entries.filter((e) => e.isFile()).map((e) => `${prefix}${e.name}`));
    const { startAfter, limit } = options;
    if (startAfter !== undefined) keys = keys.filter((k) => Buffer.compare(Buffer.from(k), Buffer.from(startAfter)) > 0);
    if (limit !== undefined) keys = keys.slice(0, limit);
    return keys.map((key) => ({ key }));
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async close(): Promise<void> {}

  private async entries(prefix: string) {
    if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`a folder prefix ends with '/': ${prefix}`);
    try {
      return await readdir(this.path(prefix), { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
  }

  /** the file of `key`, refusing keys that would leave the root */
  private path(key: string): string {
    const segments = key.split('/').filter((s) => s !== '');
    if (key.startsWith('/') || segments.some((s) => s === '..' || s === '.' || s.includes('\\'))) {
      throw new Error(`not a key under the source's root: ${key}`);
    }
    const path = join(this.root, ...segments);
    if (path !== this.root && !path.startsWith(this.root + sep)) throw new Error(`not a key under the source's root: ${key}`);
    return path;
  }
}

function sortByBytes(keys: string[]): string[] {
  return keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
