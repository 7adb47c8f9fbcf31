/**
 * Where generated rows go: PostgreSQL through `COPY … FROM STDIN` (pg-copy-streams, one connection
 * and one long COPY per table, so the server ingests in parallel with generation), PGlite through
 * `COPY … FROM '/dev/blob'` per chunk, or memory (tests).
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import type { TableSpec } from './tables.js';

export interface RowSink {
  /** Appends a chunk of complete COPY text rows to the table. */
  write(table: TableSpec, chunk: string): Promise<void>;
  /** Completes every load; the rows are committed when it resolves. */
  finish(): Promise<void>;
  /** Abandons the loads (rows of unfinished COPYs are rolled back). */
  abort(): Promise<void>;
}

function copyStatement(table: TableSpec, source: 'stdin' | `'/dev/blob'`): string {
  return `copy ${table.name} (${table.columns.map((c) => `"${c}"`).join(', ')}) from ${source}`;
}

interface CopyChannel {
  client: pg.Client;
  stream: CopyStreamQuery;
  error: Error | null;
}

export class PostgresCopySink implements RowSink {
  private readonly channels = new Map<string, Promise<CopyChannel>>();

  constructor(private readonly url: string) {}

  private channel(table: TableSpec): Promise<CopyChannel> {
    let channel = this.channels.get(table.name);
    if (!channel) {
      channel = this.open(table);
      this.channels.set(table.name, channel);
    }
    return channel;
  }

  private async open(table: TableSpec): Promise<CopyChannel> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'lqs-generate' });
    await client.connect();
    await client.query('set synchronous_commit to off');
    const stream = client.query(copyFrom(copyStatement(table, 'stdin')));
    const channel: CopyChannel = { client, stream, error: null };
    stream.on('error', (err: Error) => {
      channel.error ??= new Error(`COPY into ${table.name} failed: ${err.message}`, { cause: err });
    });
    client.on('error', (err: Error) => {
      channel.error ??= err;
    });
    return channel;
  }

  async write(table: TableSpec, chunk: string): Promise<void> {
    const channel = await this.channel(table);
    if (channel.error) throw channel.error;
    // once() rejects when the stream reports an error meanwhile
    if (!channel.stream.write(chunk)) await once(channel.stream, 'drain');
  }

  async finish(): Promise<void> {
    const channels = await Promise.all(this.channels.values());
    try {
      await Promise.all(
        channels.map(async (channel) => {
          if (channel.error) throw channel.error;
          const done = once(channel.stream, 'finish');
          channel.stream.end();
          await done;
        }),
      );
    } finally {
      await Promise.all(channels.map((c) => c.client.end().catch(() => undefined)));
      this.channels.clear();
    }
  }

  async abort(): Promise<void> {
    const channels = await Promise.allSettled(this.channels.values());
    for (const settled of channels) {
      if (settled.status !== 'fulfilled') continue;
      settled.value.stream.destroy();
      await settled.value.client.end().catch(() => undefined);
    }
    this.channels.clear();
  }
}

/** PGlite runs in this thread, so chunks are loaded one after the other. */
export class PgliteCopySink implements RowSink {
  constructor(private readonly pg: PGlite) {}

  async write(table: TableSpec, chunk: string): Promise<void> {
    await this.pg.query(copyStatement(table, `'/dev/blob'`), [], { blob: new Blob([chunk]) });
  }

  async finish(): Promise<void> {}

  async abort(): Promise<void> {}
}

/** Keeps a digest (and optionally the rows) of what was written: determinism and distribution tests. */
export class MemorySink implements RowSink {
  readonly digests = new Map<string, Hash>();
  readonly rows = new Map<string, string[][]>();

  constructor(private readonly keep: ReadonlySet<string> = new Set()) {}

  async write(table: TableSpec, chunk: string): Promise<void> {
    let digest = this.digests.get(table.name);
    if (!digest) {
      digest = createHash('sha256');
      this.digests.set(table.name, digest);
    }
    digest.update(chunk);
    if (this.keep.has(table.name)) {
      const list = this.rows.get(table.name) ?? [];
      for (const line of chunk.split('\n')) if (line !== '') list.push(line.split('\t'));
      this.rows.set(table.name, list);
    }
  }

  async finish(): Promise<void> {}

  async abort(): Promise<void> {}

  /** sha256 of each table's text, by table name. */
  digestHex(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, digest] of [...this.digests].sort(([a], [b]) => a.localeCompare(b))) out[name] = digest.copy().digest('hex');
    return out;
  }
}
