import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basicAuthorized, basicCredentials } from '../../src/http/basicAuth.js';

const header = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('HTTP Basic credentials', () => {
  it('splits user and password at the first colon', () => {
    assert.deepEqual(basicCredentials(header('ops:s3:cret')), { user: 'ops', password: 's3:cret' });
    assert.deepEqual(basicCredentials(header(':')), { user: '', password: '' });
    assert.deepEqual(basicCredentials(`basic   ${Buffer.from('a:b').toString('base64')}  `), { user: 'a', password: 'b' });
  });

  it('finds none in what is not a Basic header', () => {
    assert.equal(basicCredentials(undefined), undefined);
    assert.equal(basicCredentials(''), undefined);
    assert.equal(basicCredentials('Bearer abc'), undefined);
    assert.equal(basicCredentials(header('no colon')), undefined);
    assert.equal(basicCredentials('Basic not*base64'), undefined);
    assert.equal(basicCredentials('Basic YTpi=YTpi'), undefined);
  });

  it('authorizes exactly the configured user and password', () => {
    assert.equal(basicAuthorized(header('ops:secret'), 'ops', 'secret'), true);
    assert.equal(basicAuthorized(header('ops:secreT'), 'ops', 'secret'), false);
    assert.equal(basicAuthorized(header('op:ssecret'), 'ops', 'secret'), false);
    assert.equal(basicAuthorized(undefined, 'ops', 'secret'), false);
  });
});
