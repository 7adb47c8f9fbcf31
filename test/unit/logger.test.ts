import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';

function collect(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  return { stream, text: () => out };
}

describe('logger', () => {
  it('writes JSON lines by default', () => {
    const { stream, text } = collect();
    createLogger('info', stream).info({ requestId: 'r-1' }, 'hello');
    const line = JSON.parse(text());
    assert.equal(line.msg, 'hello');
    assert.equal(line.requestId, 'r-1');
    assert.equal(line.level, 30);
  });

  it('writes the pid exactly once in every line: root, children, a base of its own, a request logger', () => {
    const { stream, text } = collect();
    const root = createLogger('info', stream, { base: { role: 'primary' } });
    root.info('root');
    root.child({ reqId: 'r-3' }).info({ workerPid: 7 }, 'child');
    root.child({ a: 1 }).child({ b: 2 }).warn('grandchild');
    createLogger('info', stream).info({ workers: 2 }, 'plain');
    const lines = text().trim().split('\n');
    assert.equal(lines.length, 4);
    for (const line of lines) {
      assert.equal(line.match(/"pid":/g)?.length, 1, line);
      assert.equal(JSON.parse(line).pid, process.pid);
    }
  });

  it('writes readable lines with log.pretty, at the same level', () => {
    const { stream, text } = collect();
    const logger = createLogger('info', stream, { pretty: true });
    logger.info({ requestId: 'r-2' }, 'hello people');
    logger.debug('not shown');
    assert.match(text(), /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: hello people\n\s+requestId: "r-2"\n$/);
    assert.doesNotMatch(text(), /not shown/);
  });
});
