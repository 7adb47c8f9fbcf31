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

  it('writes readable lines with log.pretty, at the same level', () => {
    const { stream, text } = collect();
    const logger = createLogger('info', stream, { pretty: true });
    logger.info({ requestId: 'r-2' }, 'hello people');
    logger.debug('not shown');
    assert.match(text(), /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: hello people\n\s+requestId: "r-2"\n$/);
    assert.doesNotMatch(text(), /not shown/);
  });
});
