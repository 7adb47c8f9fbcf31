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
import type { LastRow } from '../writers/recordFileWriter.js';
import { recordItemRows } from '../writers/transactionRows.js';
import type { Walker } from './walker.js';
import type { AcceptedFile } from '../writers/recordFileWriter.js';

const DATA_FILE = /\.rcd(\.gz)?$/;
/** names looked at per node folder and step: enough to step over a node's oddly named copy */
const LOOKAHEAD = 8;

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
}

export class RecordStreamWalker implements Walker {
  readonly kind = 'record streams';
  private folders: NodeFolders[];
  private book: AddressBook;

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

  /** The data file names after `after` that any node has, in order. */
  async candidates(after: string | null): Promise<string[]> {
    const names = new Set<string>();
    for (const { prefixes } of this.folders) {
      for (const prefix of prefixes) {
        const listed = await this.options.source.list(prefix, {
          startAfter: after === null ? undefined : prefix + after,
          limit: LOOKAHEAD * 2,
        });
        for (const { key } of listed) {
          const name = key.slice(prefix.length);
          if (DATA_FILE.test(name)) names.add(name);
        }
      }
    }
    return [...names].sort(byBytes).slice(0, LOOKAHEAD);
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
        if (!(e instanceof StreamFileError) || e instanceof SignedFileRefused) throw e;
        firstError ??= e;
      }
    }
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
