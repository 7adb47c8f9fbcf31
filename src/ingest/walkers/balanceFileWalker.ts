/**
 * Account balance files (`accountBalances/balance<shard>.<realm>.<num>/`), the next after the last
 * stored one: a time any node has a file for, its `.pb.gz` when a node has one (the `.csv` of the
 * same time is then left alone, as the importer picks the protobuf), each node's signature file read
 * (`X.csv_sig`, `X.pb_sig.gz`), consensus reached by stake, and the first signer's copy whose hash
 * (SHA-384 of the CSV, or of the gunzipped protobuf) is the signed one accepted. Balance files are
 * not chained.
 */
import { readSignatureFile } from '../readers/signatureFile.js';
import { BALANCE_FILE, readBalanceFile } from '../readers/balanceFile.js';
import type { StreamSource } from '../sources/source.js';
import { StreamFileError } from '../streamError.js';
import type { AddressBook } from '../verification/addressBook.js';
import { balanceFileHash } from '../verification/balanceFileHash.js';
import { type NodeSignature, reachConsensus } from '../verification/consensus.js';
import type { AcceptedBalanceFile } from '../writers/balanceFileWriter.js';

/** objects listed per node folder at once */
const LISTING_LIMIT = 200;

/** `X_Balances.csv` is signed in `X_Balances.csv_sig`, `X_Balances.pb.gz` in `X_Balances.pb_sig.gz`. */
export function balanceSignatureName(dataName: string): string {
  return dataName.endsWith('.pb.gz') ? dataName.replace(/\.pb\.gz$/, '.pb_sig.gz') : `${dataName}_sig`;
}

/** The time part of a balance file's name (`2019-08-30T18_15_00.016002001Z`). */
function timeOf(name: string): string {
  return name.replace(BALANCE_FILE, '');
}

function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export class BalanceFileWalker {
  private book: AddressBook;

  constructor(
    private readonly source: StreamSource,
    book: AddressBook,
  ) {
    this.book = book;
  }

  useAddressBook(book: AddressBook): void {
    this.book = book;
  }

  private folders(): { nodeId: bigint; prefix: string }[] {
    return [...this.book.nodes.values()]
      .filter((n) => n.accountId !== null && n.accountId !== undefined)
      .map((n) => ({ nodeId: n.nodeId, prefix: `accountBalances/balance${n.accountId}/` }));
  }

  /** The name of the next balance file after `after` (a stored file's name), null when there is none yet. */
  async nextName(after: string | null): Promise<string | null> {
    const afterTime = after === null ? null : timeOf(after);
    const byTime = new Map<string, Set<string>>();
    let cut: string | null = null;
    for (const { prefix } of this.folders()) {
      const listed = await this.source.list(prefix, {
        startAfter: afterTime === null ? undefined : `${prefix}${afterTime}_Balances.zzz`,
        limit: LISTING_LIMIT,
      });
      for (const { key } of listed) {
        const name = key.slice(prefix.length);
        if (!BALANCE_FILE.test(name)) continue;
        const time = timeOf(name);
        if (afterTime !== null && byBytes(time, afterTime) <= 0) continue;
        const names = byTime.get(time) ?? new Set<string>();
        names.add(name);
        byTime.set(time, names);
      }
      const lastKey = listed[listed.length - 1]?.key;
      if (listed.length === LISTING_LIMIT && lastKey) {
        const lastTime = timeOf(lastKey.slice(prefix.length));
        if (cut === null || byBytes(lastTime, cut) < 0) cut = lastTime;
      }
    }
    const times = [...byTime.keys()].filter((t) => cut === null || byBytes(t, cut) <= 0).sort(byBytes);
    const first = times[0];
    if (first === undefined) return null;
    const names = [...byTime.get(first)!];
    return names.find((n) => n.endsWith('.pb.gz')) ?? names[0]!;
  }

  /** Reads and verifies `name`; a StreamFileError naming it when no copy can be accepted. */
  async accept(name: string): Promise<AcceptedBalanceFile> {
    const folders = this.folders();
    const signatures: NodeSignature[] = [];
    const unreadable: string[] = [];
    const sigName = balanceSignatureName(name);
    for (const { nodeId, prefix } of folders) {
      const bytes = await this.source.read(prefix + sigName);
      if (!bytes) continue;
      try {
        signatures.push({ nodeId, signature: readSignatureFile(prefix + sigName, bytes) });
      } catch (e) {
        if (!(e instanceof StreamFileError)) throw e;
        unreadable.push(`node ${nodeId}: ${e.reason}`);
      }
    }
    if (signatures.length === 0) {
      throw new StreamFileError(name, `no readable signature file${unreadable.length ? ` (${unreadable.join('; ')})` : ''}`);
    }
    const consensus = reachConsensus(name, signatures, this.book);
    const reasons: string[] = [];
    for (const nodeId of consensus.signers) {
      const { prefix } = folders.find((f) => f.nodeId === nodeId)!;
      const bytes = await this.source.read(prefix + name);
      if (!bytes) {
        reasons.push(`node ${nodeId}: no data file`);
        continue;
      }
      try {
        const hash = balanceFileHash(name, bytes);
        if (!hash.equals(consensus.fileHash)) throw new StreamFileError(name, 'its hash is not the one the nodes signed');
        return { file: readBalanceFile(name, bytes), fileHash: hash.toString('hex') };
      } catch (e) {
        if (!(e instanceof StreamFileError)) throw e;
        reasons.push(`node ${nodeId}: ${e.reason}`);
      }
    }
    throw new StreamFileError(name, `no node's copy can be accepted: ${reasons.join('; ')}`);
  }
}
