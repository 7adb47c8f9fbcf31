/**
 * Source folders for the ingester built from `../shared/streams` in a temporary folder (the shared
 * folders stand for parts of a bucket; see their README's Layouts): copies, so that a test may
 * remove, cut or corrupt files without touching the shared ones. Also address books restricted to
 * some of a test book's nodes.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import { readFields, WIRE_LENGTH } from '../../src/domain/protobuf.js';
import { type AddressBookNode, parseAddressBook } from '../../src/ingest/verification/addressBook.js';
import { STREAMS_DIR } from './streamGroundTruth.js';

export interface Bucket {
  root: string;
  /** every file under the root, relative to it */
  files(): string[];
  path(relativePath: string): string;
  remove(relativePath: string): void;
  rewrite(relativePath: string, change: (bytes: Buffer) => Buffer): void;
  /** removes every file (or folder, by its path) that `which` selects */
  removeEach(which: (path: string) => boolean): void;
  rewriteEach(which: (path: string) => boolean, change: (bytes: Buffer) => Buffer): void;
  dispose(): void;
}

function walk(dir: string, root: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, root, out);
    else out.push(relative(root, path));
  }
  return out.sort();
}

/** A temporary folder holding `shared` (a path under the stream files) at `at` ('' for the root). */
export function bucketOf(parts: { shared: string; at: string }[]): Bucket {
  const root = mkdtempSync(join(tmpdir(), 'lqs-streams-'));
  for (const { shared, at } of parts) cpSync(join(STREAMS_DIR, shared), join(root, at), { recursive: true });
  return {
    root,
    files: () => walk(root, root, []),
    path: (p) => join(root, p),
    remove: (p) => rmSync(join(root, p), { recursive: true, force: true }),
    rewrite: (p, change) => writeFileSync(join(root, p), change(readFileSync(join(root, p)))),
    removeEach(which) {
      for (const f of walk(root, root, [])) if (which(f)) rmSync(join(root, f), { force: true });
    },
    rewriteEach(which, change) {
      for (const f of walk(root, root, [])) if (which(f)) writeFileSync(join(root, f), change(readFileSync(join(root, f))));
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A record stream set (`v6`, `v2v5`…) as a bucket's `recordstreams/` folder. */
export function recordStreamBucket(set: string): Bucket {
  return bucketOf([{ shared: `recordstreams/${set}`, at: 'recordstreams' }]);
}

/**
 * Writes, into `dir`, the test address book `name` restricted to the nodes of `accounts` (`0.0.3`),
 * keeping their NodeAddress entries byte for byte; returns its path.
 */
export function addressBookWith(name: string, accounts: string[], dir: string): string {
  const bytes = readFileSync(join(STREAMS_DIR, 'addressbooks', 'test', name));
  const writer = protobuf.Writer.create();
  readFields(bytes, (field, wire, r) => {
    if (field !== 1 || wire !== WIRE_LENGTH) return false;
    const entry = r.bytes();
    const single = protobuf.Writer.create()
      .uint32((1 << 3) | WIRE_LENGTH)
      .bytes(entry)
      .finish();
    let node: AddressBookNode | undefined;
    try {
      [node] = parseAddressBook(single, name).nodes.values();
    } catch {
      return true; // an entry without a key
    }
    if (node?.accountId && accounts.includes(node.accountId)) writer.uint32((1 << 3) | WIRE_LENGTH).bytes(entry);
    return true;
  });
  const path = join(dir, `${name}-${accounts.join('_')}`);
  writeFileSync(path, writer.finish());
  return path;
}

export function testBookPath(name: string): string {
  return join(STREAMS_DIR, 'addressbooks', 'test', name);
}
