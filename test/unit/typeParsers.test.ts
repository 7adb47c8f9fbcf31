import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { splittingArrayParser } from '../../src/db/typeParsers.js';

describe('splittingArrayParser', () => {
  const generalCalls: string[] = [];
  const parse = splittingArrayParser(
    (text) => `<${text}>`,
    (text) => {
      generalCalls.push(text);
      return ['general'];
    },
  );

  it('splits plain one-dimensional literals itself, with unquoted NULL as null', () => {
    generalCalls.length = 0;
    assert.deepEqual(parse('{ab12,NULL,cd34}'), ['<ab12>', null, '<cd34>']);
    assert.deepEqual(parse('{7}'), ['<7>']);
    assert.deepEqual(parse('{}'), []);
    assert.deepEqual(generalCalls, []);
  });

  it('hands quoted elements, nested arrays and explicit bounds to the general parser', () => {
    generalCalls.length = 0;
    for (const text of ['{"a,b",c}', '{"NULL"}', '{{1,2},{3,4}}', '[0:1]={x,y}']) assert.deepEqual(parse(text), ['general']);
    assert.deepEqual(generalCalls, ['{"a,b",c}', '{"NULL"}', '{{1,2},{3,4}}', '[0:1]={x,y}']);
  });
});
