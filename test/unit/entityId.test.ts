import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntityId, encodeEntityId, formatEntityId, parseEntityRef, MAX_NUM } from '../../src/domain/entityId.js';

const system = { shard: 0n, realm: 0n };

describe('entity ids', () => {
  it('packs shard, realm and num into 10|16|38 bits, signed', () => {
    assert.equal(encodeEntityId(0n, 0n, 1001n), 1001n);
    assert.equal(encodeEntityId(0n, 1n, 0n), 1n << 38n);
    assert.equal(encodeEntityId(1n, 0n, 0n), 1n << 54n);
    assert.equal(encodeEntityId(1023n, 65535n, MAX_NUM), -1n);
    assert.deepEqual(decodeEntityId(-1n), { shard: 1023n, realm: 65535n, num: MAX_NUM });
    assert.deepEqual(decodeEntityId(encodeEntityId(3n, 7n, 99n)), { shard: 3n, realm: 7n, num: 99n });
  });

  it('renders num 0 and NULL as null', () => {
    assert.equal(formatEntityId(1001n), '0.0.1001');
    assert.equal(formatEntityId(encodeEntityId(1n, 2n, 3n)), '1.2.3');
    assert.equal(formatEntityId(0n), null);
    assert.equal(formatEntityId(encodeEntityId(0n, 5n, 0n)), null);
    assert.equal(formatEntityId(null), null);
  });

  it('renders ids either side of the largest shard 0, realm 0 num', () => {
    assert.equal(formatEntityId(MAX_NUM), `0.0.${MAX_NUM}`);
    assert.equal(formatEntityId(MAX_NUM + 1n), null, 'realm 1, num 0');
    assert.equal(formatEntityId(MAX_NUM + 2n), '0.1.1');
    assert.equal(formatEntityId(-1n), `1023.65535.${MAX_NUM}`);
    assert.equal(formatEntityId(encodeEntityId(1023n, 0n, 5n)), '1023.0.5');
  });

  it('parses shard.realm.num, realm.num and bare nums', () => {
    assert.deepEqual(parseEntityRef('0.0.1001', system), { kind: 'id', id: 1001n });
    assert.deepEqual(parseEntityRef('1.2.3', system), { kind: 'id', id: encodeEntityId(1n, 2n, 3n) });
    assert.deepEqual(parseEntityRef('2.3', system), { kind: 'id', id: encodeEntityId(0n, 2n, 3n) });
    assert.deepEqual(parseEntityRef('42', system), { kind: 'id', id: 42n });
    assert.deepEqual(parseEntityRef('42', { shard: 1n, realm: 2n }), { kind: 'id', id: encodeEntityId(1n, 2n, 42n) });
  });

  it('rejects out-of-range parts and malformed text', () => {
    for (const text of [
      '0.0.274877906944',
      '0.65536.1',
      '1024.0.1',
      '12345.0.1',
      '0.0.-1',
      '-5',
      'a.b.c',
      '',
      '0.0.1.2',
      '0..1',
      '274877906944',
    ]) {
      assert.equal(parseEntityRef(text, system), null, text);
    }
  });

  it('resolves long-zero EVM addresses to ids and keeps others opaque', () => {
    assert.deepEqual(parseEntityRef('0x00000000000000000000000000000000000003e9', system), { kind: 'id', id: 1001n });
    assert.deepEqual(parseEntityRef('00000000000000000000000000000000000003E9', system), { kind: 'id', id: 1001n });
    assert.deepEqual(parseEntityRef('0.0.00000000000000000000000000000000000003e9', system), { kind: 'id', id: 1001n });
    const opaque = parseEntityRef('0xAC384C53F03855FA1B3616052F8BA32C6C2A2FEC', system);
    assert.equal(opaque?.kind, 'evm');
    assert.equal(opaque?.kind === 'evm' && opaque.address.toString('hex'), 'ac384c53f03855fa1b3616052f8ba32c6c2a2fec');
    assert.equal(parseEntityRef('1.0.ac384c53f03855fa1b3616052f8ba32c6c2a2fec', system), null, 'shard must match');
    assert.equal(parseEntityRef('0xac384c53f03855fa1b3616052f8ba32c6c2a2fec', system, { allowEvmAddress: false }), null);
  });
});
