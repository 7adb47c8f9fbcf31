import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PreparedExecution, resultShape } from '../../src/db/preparedExecution.js';

/** Records what an execution writes, as node-postgres's connection would send it. */
function fakeConnection() {
  const sent: unknown[] = [];
  const stream = { corked: 0, cork: () => stream.corked++, uncork: () => stream.corked-- };
  return {
    sent,
    stream,
    bind(config: { statement: string; values: readonly unknown[]; valueMapper: (v: unknown) => unknown }) {
      sent.push(['bind', config.statement, config.values.map((v) => config.valueMapper(v))]);
    },
    execute: (config: { portal: string }) => sent.push(['execute', config.portal]),
    sync: () => sent.push(['sync']),
    sendCopyFail: (message: string) => sent.push(['copyFail', message]),
  };
}

const shape = resultShape(
  [
    { name: 'id', dataTypeID: 20 },
    { name: 'label', dataTypeID: 25 },
  ],
  (oid) => (oid === 20 ? (text: string) => BigInt(text) : (text: string) => text),
);

describe('PreparedExecution', () => {
  it('sends Bind, Execute and Sync in one corked write, without Parse or Describe', () => {
    const connection = fakeConnection();
    const execution = new PreparedExecution('lqs_x', [5n, null, [1, 2]], shape);
    assert.equal(execution.submit(connection), null);
    assert.deepEqual(connection.sent, [['bind', 'lqs_x', ['5', null, '{"1","2"}']], ['execute', ''], ['sync']]);
    assert.equal(connection.stream.corked, 0);
  });

  it('parses data rows with the recorded parsers and resolves when ready', async () => {
    const execution = new PreparedExecution('lqs_x', [], shape);
    execution.handleDataRow({ fields: ['9007199254740993', 'a'] });
    execution.handleDataRow({ fields: [null, null] });
    execution.handleCommandComplete();
    execution.handleReadyForQuery();
    assert.deepEqual(await execution.rows, [
      { id: 9007199254740993n, label: 'a' },
      { id: null, label: null },
    ]);
  });

  it('rejects with the first error: a server error, or a value a parser refuses', async () => {
    const failed = new PreparedExecution('lqs_x', [], shape);
    failed.handleError(new Error('division by zero'));
    failed.handleReadyForQuery();
    await assert.rejects(failed.rows, /division by zero/);

    const unparsable = new PreparedExecution('lqs_x', [], shape);
    unparsable.handleDataRow({ fields: ['not a number', 'a'] });
    unparsable.handleDataRow({ fields: ['1', 'b'] });
    unparsable.handleReadyForQuery();
    await assert.rejects(unparsable.rows, SyntaxError);
  });

  it('returns a value it cannot send as the submit error, having written nothing', () => {
    const connection = fakeConnection();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = new PreparedExecution('lqs_x', [circular], shape).submit(connection);
    assert.ok(error instanceof Error);
    assert.deepEqual(connection.sent, []);
    assert.equal(connection.stream.corked, 0);
  });

  it('refuses COPY data it has no source for', () => {
    const connection = fakeConnection();
    new PreparedExecution('lqs_x', [], shape).handleCopyInResponse(connection);
    assert.deepEqual(connection.sent, [['copyFail', 'no source stream for COPY']]);
  });
});
