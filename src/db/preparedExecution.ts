/**
 * Runs a statement that a connection has already prepared, without asking PostgreSQL to describe its
 * result again. node-postgres sends Describe with every execution of a named statement, and for
 * every result looks up a parser per column again; a statement's columns and their types cannot
 * change while it stays prepared, so its first execution on any connection records them (its
 * `ResultShape`) and later executions send only Bind, Execute and Sync and parse rows with the
 * recorded parsers. It plugs into node-postgres as a submittable (what pg-cursor and
 * pg-query-stream use): the client hands it the connection and the messages of its turn.
 */
import utils from 'pg/lib/utils.js';
import type { Row } from './db.js';

type FieldParser = (text: string) => unknown;

/** A statement's result columns, in order, with the parser of each one's type. */
export interface ResultShape {
  names: string[];
  parsers: FieldParser[];
}

export function resultShape(fields: readonly { name: string; dataTypeID: number }[], parserOf: (oid: number) => FieldParser): ResultShape {
  return { names: fields.map((f) => f.name), parsers: fields.map((f) => parserOf(f.dataTypeID)) };
}

/** The part of node-postgres's connection a submittable writes to. */
interface Connection {
  bind(config: { statement: string; values: readonly unknown[]; valueMapper: (value: unknown) => unknown }): void;
  execute(config: { portal: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
  stream: { cork?(): void; uncork?(): void };
}

/** One execution; `rows` settles once PostgreSQL is ready for the next statement, or at the first error. */
export class PreparedExecution<R = Row> {
  readonly rows: Promise<R[]>;
  private readonly collected: R[] = [];
  private failure: Error | null = null;
  private settled = false;
  private resolve!: (rows: R[]) => void;
  private reject!: (err: Error) => void;

  constructor(
    private readonly statement: string,
    private readonly values: readonly unknown[],
    private readonly shape: ResultShape,
  ) {
    this.rows = new Promise<R[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Called by the client when the connection is this execution's; an error returned is handed back to handleError. */
  submit(connection: Connection): Error | null {
    connection.stream.cork?.();
    try {
      // the serializer maps every value before it writes anything, so a value it cannot send leaves the connection clean
      connection.bind({ statement: this.statement, values: this.values, valueMapper: utils.prepareValue });
      connection.execute({ portal: '' });
      connection.sync();
      return null;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.failure) return;
    const { names, parsers } = this.shape;
    const fields = msg.fields;
    const row: Record<string, unknown> = {};
    try {
      for (let i = 0; i < fields.length; i++) {
        const text = fields[i];
        row[names[i]!] = text === null || text === undefined ? null : parsers[i]!(text);
      }
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      return;
    }
    this.collected.push(row as R);
  }

  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    this.settle(this.failure);
  }

  // Messages that an execution without Describe or a row limit does not receive, or needs nothing from.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('no source stream for COPY');
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    if (err) this.reject(err);
    else this.resolve(this.collected);
  }
}
