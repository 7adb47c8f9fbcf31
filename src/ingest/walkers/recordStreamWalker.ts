/**
 * Record streams, in both bucket layouts at once: ACCOUNT_ID (`recordstreams/record0.0.N/`) and
 * NODE_ID (`<shard>/<nodeId>/record/`, also under `<network>/`), sidecars in each folder's `sidecar/`.
 * The next file is the earliest name after the last stored one that any node has; every node's
 * signature file for it is read, consensus is reached by stake, and the first node copy whose hashes
 * equal the signed ones (and whose sidecars match) is accepted if it continues the chain.
 */
import type { StreamSource } from '../sources/source.js';
import { StreamFileError } from '../streamError.js';
import { fileNameNanos } from '../streamFileName.js';
import { readSignatureFile } from '../readers/signatureFile.js';
import type { RecordFile } from '../recordFile.js';
import { acceptRecordFile } from '../verification/acceptRecordFile.js';
import type { AddressBook } from '../verification/addressBook.js';
import { type NodeSignature, reachConsensus } from '../verification/consensus.js';
import { checkSidecar, sidecarNames } from '../verification/sidecarHash.js';
import type { AcceptedFile, LastRow } from '../writers/recordFileWriter.js';
import { recordItemRows } from '../writers/transactionRows.js';
import type { Walker } from './walker.js';

const DATA_FILE = /\.rcd(\.gz)?$/;
/** names tried per step: enough to step over a node's oddly named copy */
const LOOKAHEAD = 8;
/** objects listed per node folder at once; the names are used for the following steps until few are left */
const LISTING_LIMIT = 200;

interface NodeFolders {
  nodeId: bigint;
  prefixes: string[];
}

/** The folders a node's files may sit in. */
export function nodeFolders(book: AddressBook, network: string | null): NodeFolders[] {
  return [...book.nodes.values()].map((node) => {
    const shard = node.accountId ? node.accountId.split('.')[0]! : '0';
    const prefixes = [`${shard}/${node.nodeId}/record/`];
    if (node.accountId) prefixes.unshift(`recordstreams/record${node.accountId}/`);
    if (network) prefixes.push(`${network}/${shard}/${node.nodeId}/record/`);
    return { nodeId: node.nodeId, prefixes };
  });
}

/** `X.rcd.gz` and `X.rcd` are signed in `X.rcd_sig`. */
export function signatureName(dataName: string): string {
  return `${dataName.replace(/\.gz$/, '')}_sig`;
}

function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A file the nodes reached consensus on whose every copy was refused. */
class SignedFileRefused extends StreamFileError {}

export interface RecordStreamWalkerOptions {
  source: StreamSource;
  book: AddressBook;
  network: string | null;
  shardRealm: { shard: bigint; realm: bigint };
  /** objects listed per node folder at once (default 200) */
  listingLimit?: number;
}

export class RecordStreamWalker implements Walker {
  readonly kind = 'record streams';
  private folders: NodeFolders[];
  private book: AddressBook;
  /** data file names of the last listing, in order: every name any node folder has up to the last one */
  private listed: string[] = [];

  constructor(private readonly options: RecordStreamWalkerOptions) {
    this.book = options.book;
    this.folders = nodeFolders(options.book, options.network);
  }

  useAddressBook(book: AddressBook): void {
    this.book = book;
    this.folders = nodeFolders(book, this.options.network);
  }

  async firstFileNanos(): Promise<bigint | null> {
    const [first] = await this.candidates(null);
    return first === undefined ? null : fileNameNanos(first);
  }

  /**
   * The data file names after `after` that any node has, in order: from the last listing while it
   * has names left (a file arriving later has a later name), else from a new one.
   */
  async candidates(after: string | null): Promise<string[]> {
    const known = this.listed.filter((n) => after === null || byBytes(n, after) > 0);
    if (known.length > 0) return known.slice(0, LOOKAHEAD);
    this.listed = await this.list(after);
    return this.listed.slice(0, LOOKAHEAD);
  }

  /**
   * Lists every node folder after `after`. A folder whose listing was cut at the limit may hold
   * names beyond its last one that another folder has not: the union stops at the earliest such cut.
   */
  private async list(after: string | null): Promise<string[]> {
    const limit = this.options.listingLimit ?? LISTING_LIMIT;
    const names = new Set<string>();
    let cut: string | null = null;
    for (const { prefixes } of this.folders) {
      for (const prefix of prefixes) {
        const listed = await this.options.source.list(prefix, { startAfter: after === null ? undefined : prefix + after, limit });
        for (const { key } of listed) {
          const name = key.slice(prefix.length);
          if (DATA_FILE.test(name)) names.add(name);
        }
        const lastKey = listed[listed.length - 1]?.key;
        if (listed.length === limit && lastKey) {
          const lastName = lastKey.slice(prefix.length);
          if (cut === null || byBytes(lastName, cut) < 0) cut = lastName;
        }
      }
    }
    const sorted = [...names].sort(byBytes);
    if (cut === null) return sorted;
    const before = sorted.filter((n) => byBytes(n, cut) <= 0);
    // only signature files up to the cut: the data files are further on
    return before.length > 0 ? before : this.list(cut);
  }

  async next(last: LastRow | null): Promise<AcceptedFile | null> {
    const names = await this.candidates(last?.name ?? null);
    let firstError: StreamFileError | null = null;
    for (const name of names) {
      try {
        return await this.accept(name, last);
      } catch (e) {
        // a name too few nodes signed (one node's oddly named copy) does not hold up the others;
        // a file the nodes agree on but that cannot be accepted stops the walk there
        if (e instanceof SignedFileRefused) this.listed = [];
        if (!(e instanceof StreamFileError) || e instanceof SignedFileRefused) throw e;
        firstError ??= e;
      }
    }
    // none could be taken: the next look lists again (the properly named file may have arrived since)
    this.listed = [];
    if (firstError) throw firstError;
    return null;
  }

  /** The first copy of `prefixes` + `name` there is, with the prefix it was found under. */
  private async readFirst(prefixes: string[], name: string): Promise<{ prefix: string; bytes: Buffer } | null> {
    for (const prefix of prefixes) {
      const bytes = await this.options.source.read(prefix + name);
      if (bytes) return { prefix, bytes };
    }
    return null;
  }

  private async accept(name: string, last: LastRow | null): Promise<AcceptedFile> {
    const { book } = this;
    const signatures: NodeSignature[] = [];
    const unreadable: string[] = [];
    for (const { nodeId, prefixes } of this.folders) {
      const found = await this.readFirst(prefixes, signatureName(name));
      if (!found) continue;
      try {
        signatures.push({ nodeId, signature: readSignatureFile(found.prefix + signatureName(name), found.bytes) });
      } catch (e) {
        if (!(e instanceof StreamFileError)) throw e;
        unreadable.push(`node ${nodeId}: ${e.reason}`);
      }
    }
    if (signatures.length === 0) {
      throw new StreamFileError(name, `no readable signature file${unreadable.length ? ` (${unreadable.join('; ')})` : ''}`);
    }
    const consensus = reachConsensus(name, signatures, book);
    const expected = last ? Buffer.from(last.hash, 'hex') : null;
    const reasons: string[] = [];
    for (const nodeId of consensus.signers) {
      const folders = this.folders.find((f) => f.nodeId === nodeId)!;
      const copy = await this.readFirst(folders.prefixes, name);
      if (!copy) {
        reasons.push(`node ${nodeId}: no data file`);
        continue;
      }
      try {
        const file = acceptRecordFile([{ name, bytes: copy.bytes }], consensus, expected);
        await this.checkSidecars(file, folders.prefixes);
        return { file, nodeId, rows: recordItemRows(name, file.items, this.options.shardRealm) };
      } catch (e) {
        if (!(e instanceof StreamFileError)) throw e;
        reasons.push(`node ${nodeId}: ${e.reason}`);
      }
    }
    throw new SignedFileRefused(name, `no node's copy can be accepted: ${reasons.join('; ')}`);
  }

  /** Each sidecar the file lists must be there, next to the copy, and hash as listed. */
  private async checkSidecars(file: RecordFile, prefixes: string[]): Promise<void> {
    for (const sidecar of sidecarNames(file)) {
      const found = await this.readFirst(
        prefixes.map((p) => `${p}sidecar/`),
        sidecar,
      );
      if (!found) throw new StreamFileError(sidecar, `sidecar of ${file.name} is missing`);
      checkSidecar(file, sidecar, found.bytes);
    }
  }
}
