import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, get, useHarness } from '../support/harness.js';

const PATH = '/api/v1/accounts/0.0.1001/nfts';

describe('account NFTs: parameter validation', () => {
  const harness = useHarness();

  const expect400 = async (qs: string, ...messages: string[]) => {
    const res = await get(harness(), `${PATH}?${qs}`);
    assert.equal(res.status, 400, `${qs}: ${res.text}`);
    assert.deepEqual(res.body, errorOf(...messages), qs);
    assert.equal(res.headers['cache-control'], undefined, 'errors carry no cache-control');
  };

  it('names every invalid value, then every unknown parameter', async () => {
    await expect400(
      'token.id=x&serialnumber=y&spender.id=z&order=12&limit=a',
      'Invalid parameter: token.id',
      'Invalid parameter: serialnumber',
      'Invalid parameter: spender.id',
      'Invalid parameter: order',
      'Invalid parameter: limit',
    );
    await expect400(
      'foo=1&limit=0&timestamp=1',
      'Invalid parameter: limit',
      'Unknown query parameter: foo',
      'Unknown query parameter: timestamp',
    );
    for (const qs of [
      'token.id=' + 'ab'.repeat(20),
      'token.id=0.0.274877906944',
      'token.id=abc:1',
      'token.id=gt:',
      'serialnumber=0',
      'serialnumber=-1',
      'serialnumber=9223372036854775808',
      'serialnumber=12345678901234567890',
      'spender.id=0.0.x',
      'spender.id=' + 'ab'.repeat(19),
      'limit=0',
      'limit=-1',
      'limit=9223372036854775808',
      'order=up',
    ]) {
      await expect400(qs, `Invalid parameter: ${qs.split('=')[0]}`);
    }
  });

  it('limits repeated values', async () => {
    const nine = Array.from({ length: 9 }, (_, i) => `spender.id=${i + 1}`).join('&');
    await expect400(nine, 'Array limit exceeded. Only 8 elements allowed in an array.');
    for (const path of ['x', 'AAAQEAYEAUDAOCAJ']) {
      const res = await get(harness(), `/api/v1/accounts/${path}/nfts?${nine}`);
      assert.deepEqual(
        [res.status, res.body],
        [400, errorOf('Array limit exceeded. Only 8 elements allowed in an array.')],
        'query-string errors precede the path',
      );
    }
    await expect400('a[b][c]=1', 'Input depth exceeded depth option of 1 and strictDepth is true');
    await expect400(
      'SPENDER.ID=1&spender.id=2&Spender.Id=3&spender.id=4&spender.id=5&spender.id=6&spender.id=7&spender.id=8&spender.ID=9',
      'Parameter values count exceeds maximum number allowed: spender.id count: 9 max: 8',
    );
  });

  it('allows each token.id and serialnumber operator once', async () => {
    for (const key of ['token.id', 'serialnumber']) {
      const token = key === 'serialnumber' ? 'token.id=gte:1&token.id=lte:9&' : '';
      await expect400(`${token}${key}=2&${key}=eq:3`, `Only one equal (eq) operator is allowed for ${key}`);
      for (const pair of ['gt:2&X=gt:3', 'gte:2&X=gte:3', 'gt:2&X=gte:3']) {
        await expect400(`${token}${key}=${pair.replace('X', key)}`, `Only one gt/gte operator is allowed for ${key}`);
      }
      for (const pair of ['lt:3&X=lt:2', 'lte:3&X=lte:2', 'lt:3&X=lte:2']) {
        await expect400(`${token}${key}=${pair.replace('X', key)}`, `Only one lt/lte operator is allowed for ${key}`);
      }
      await expect400(`${token}${key}=ne:5`, `Not equal (ne) operator is not supported for ${key}`);
    }
  });

  it('reports the first offending filter in query order', async () => {
    await expect400('token.id=ne:1&serialnumber=1&serialnumber=2', 'Not equal (ne) operator is not supported for token.id');
    await expect400('serialnumber=1&serialnumber=2&token.id=ne:1', 'Only one equal (eq) operator is allowed for serialnumber');
    await expect400('serialnumber=1&serialnumber=2', 'Only one equal (eq) operator is allowed for serialnumber');
    await expect400('spender.id=ne:1&serialnumber=1', 'serialnumber without a token.id parameter filter');
    await expect400('spender.id=ne:1&spender.id=gt:1&spender.id=gt:2', 'Multiple range params not allowed for spender.id');
  });

  it('rejects a range together with eq on one parameter', async () => {
    await expect400('token.id=1&token.id=gt:0', "Can't support both range and equal for token.id");
    await expect400('token.id=lt:5&token.id=3', "Can't support both range and equal for token.id");
    await expect400('token.id=1&serialnumber=2&serialnumber=lt:9', "Can't support both range and equal for serialnumber");
    await expect400('token.id=gt:1&token.id=2&serialnumber=2&serialnumber=lt:9', "Can't support both range and equal for token.id");
  });

  it('needs token.id for serialnumber, with a matching bound for a serial range', async () => {
    for (const serial of ['3', 'eq:3', 'lt:3', 'lte:3', 'gt:3', 'gte:3']) {
      await expect400(`serialnumber=${serial}&spender.id=1`, 'serialnumber without a token.id parameter filter');
    }
    for (const token of ['lt:5', 'lte:5', 'gt:1', 'gt:1&token.id=lte:5']) {
      await expect400(`token.id=${token}&serialnumber=gt:2`, 'token.id must have gte or eq operator');
      await expect400(`token.id=${token}&serialnumber=gte:2`, 'token.id must have gte or eq operator');
    }
    for (const token of ['gt:1', 'gte:1', 'lt:5', 'gte:1&token.id=lt:5']) {
      await expect400(`token.id=${token}&serialnumber=lt:2`, 'token.id must have lte or eq operator');
      await expect400(`token.id=${token}&serialnumber=lte:2`, 'token.id must have lte or eq operator');
    }
    await expect400('token.id=lt:5&serialnumber=gt:2&serialnumber=lt:9', 'token.id must have gte or eq operator');
  });

  it('allows at most one lower and one upper spender bound and no ne', async () => {
    for (const qs of [
      'gt:2&spender.id=gt:3',
      'gte:2&spender.id=gte:3',
      'gt:2&spender.id=gte:3',
      'lt:3&spender.id=lt:2',
      'lte:3&spender.id=lte:2',
      'lt:3&spender.id=lte:2',
    ]) {
      await expect400(`spender.id=${qs}`, 'Multiple range params not allowed for spender.id');
    }
    await expect400('spender.id=ne:2', 'Not equals (ne) comparison operator is not supported');
    await expect400('spender.id=1&spender.id=ne:2&spender.id=gt:0', 'Not equals (ne) comparison operator is not supported');
  });

  it('accepts every supported combination', async () => {
    await harness().prepare({});
    for (const qs of [
      'token.id=1&serialnumber=1&spender.id=1&spender.id=2&spender.id=gt:0&spender.id=lt:9&limit=100&order=asc',
      'token.id=gte:1&token.id=lte:9&serialnumber=gt:1&serialnumber=lt:9',
      'token.id=gte:1&serialnumber=gte:1',
      'token.id=lte:9&serialnumber=lte:9',
      'token.id=gt:1&token.id=lt:9&serialnumber=5',
      'token.id=1&serialnumber=gt:1&serialnumber=lte:5',
      'token.id=gte:0.0.0&token.id=lte:0.0.1',
      'Token.ID=gt:1&ORDER=DESC&LIMIT=5',
      'limit=9223372036854775807',
      'spender.id=' + 'ab'.repeat(20),
    ]) {
      const res = await get(harness(), `${PATH}?${qs}`);
      assert.equal(res.status, 200, `${qs}: ${res.text}`);
      assert.deepEqual(res.body, { nfts: [], links: { next: null } });
    }
  });
});
