import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode } from '../../src/domain/base32.js';
import { bytesToBigInt, fromHex, toBase64, padHex, toHex, toHexQuantity, uint256Hex } from '../../src/domain/bytes.js';
import { formatKey } from '../../src/domain/key.js';
import { formatStakingPeriod, formatTimestamp, monthStartNs, parseTimestamp } from '../../src/domain/timestamp.js';
import { formatTransactionId, parseTransactionId } from '../../src/domain/transactionId.js';
import { resultName, isSuccessful } from '../../src/domain/resultCodes.js';
import { transactionTypeId, transactionTypeName } from '../../src/domain/transactionTypes.js';

describe('timestamps', () => {
  it('renders seconds.nanos exactly', () => {
    assert.equal(formatTimestamp(1234567890000000007n), '1234567890.000000007');
    assert.equal(formatTimestamp(2345n), '0.000002345');
    assert.equal(formatTimestamp(0n), '0.000000000');
    assert.equal(formatTimestamp(9223372036854775807n), '9223372036.854775807');
    assert.equal(formatTimestamp(null), null);
  });

  it('parses 1–10 second digits and 1–9 fraction digits', () => {
    assert.equal(parseTimestamp('167654.000123'), 167654000123000n);
    assert.equal(parseTimestamp('1680308100'), 1680308100000000000n);
    assert.equal(parseTimestamp('9999999999.999999999'), 9999999999999999999n);
    for (const bad of ['', '.1', '1.', '12345678901', '1.1234567890', '-1', '1e9', ' 1', '0x10'])
      assert.equal(parseTimestamp(bad), null, bad);
  });

  it('renders staking periods as the start of their day', () => {
    assert.equal(formatStakingPeriod(19000n), '1641600000.000000000');
  });

  it('finds month starts in UTC', () => {
    const t = BigInt(Date.UTC(2023, 5, 10, 12)) * 1_000_000n;
    assert.equal(monthStartNs(t), BigInt(Date.UTC(2023, 5, 1)) * 1_000_000n);
    assert.equal(monthStartNs(t, -1), BigInt(Date.UTC(2023, 4, 1)) * 1_000_000n);
    assert.equal(monthStartNs(BigInt(Date.UTC(2023, 0, 5)) * 1_000_000n, -1), BigInt(Date.UTC(2022, 11, 1)) * 1_000_000n);
  });
});

describe('byte strings', () => {
  const b = (hex: string) => Buffer.from(hex, 'hex');
  it('hex renderings', () => {
    assert.equal(toHex(null), '0x');
    assert.equal(toHex(b('')), '0x');
    assert.equal(toHex(b('0aFF')), '0x0aff');
    assert.equal(padHex('0123', 64), '0x' + '0'.repeat(60) + '0123');
    assert.equal(padHex('', 64), '0x');
    assert.equal(toHexQuantity(b('012a')), '0x12a');
    assert.equal(toHexQuantity(b('00ff')), '0x0ff');
    assert.equal(toHexQuantity(b('00')), '0x0');
    assert.equal(toHexQuantity(b('')), '0x');
    assert.equal(uint256Hex(null), null);
    assert.equal(uint256Hex(''), '0x' + '0'.repeat(64));
    assert.equal(uint256Hex('01'), '0x' + '0'.repeat(62) + '01');
  });

  it('base64 and integers', () => {
    assert.equal(toBase64(Buffer.from('m1')), 'bTE=');
    assert.equal(toBase64(null), null);
    assert.equal(bytesToBigInt(b('ff'), true), -1n);
    assert.equal(bytesToBigInt(b('ff')), 255n);
    assert.equal(bytesToBigInt(b('')), 0n);
    assert.deepEqual(fromHex('0x1'), b('01'));
    assert.equal(fromHex('xyz'), null);
  });

  it('base32 without padding, decoded loosely', () => {
    const key = b('1220519a008fabde4d28d68293c71fcdcdcca38d8fae6102a832b31e802f257fd1d9');
    const text = base32Encode(key);
    assert.equal(text, 'CIQFDGQAR6V54TJI22BJHRY7ZXG4ZI4NR6XGCAVIGKZR5ABPEV75DWI');
    assert.deepEqual(base32Decode(text), key);
    assert.deepEqual(base32Decode(text.toLowerCase()), key);
    assert.deepEqual(base32Decode('MZXW6'), Buffer.from('foo'));
    assert.equal(base32Decode('MZXW6Y'), null, 'dangling bits');
    assert.equal(base32Decode('M'), null);
    assert.equal(base32Decode('AB!'), null);
  });
});

describe('keys', () => {
  it('recognises bare, key-list and 1-of-1 threshold wrappings', () => {
    const ed = 'aa'.repeat(32);
    for (const prefix of ['1220', '32240a221220', '2a28080112240a221220']) {
      assert.deepEqual(formatKey(Buffer.from(prefix + ed, 'hex')), { _type: 'ED25519', key: ed });
    }
    const ecdsa = '02' + 'bb'.repeat(32);
    for (const prefix of ['3a21', '32250a233a21', '2a29080112250a233a21']) {
      assert.deepEqual(formatKey(Buffer.from(prefix + ecdsa, 'hex')), { _type: 'ECDSA_SECP256K1', key: ecdsa });
    }
    assert.equal(formatKey(Buffer.from('3200', 'hex')), null);
    assert.equal(formatKey(null), null);
    assert.deepEqual(formatKey(Buffer.alloc(0)), { _type: 'ProtobufEncoded', key: '' });
    assert.deepEqual(formatKey(Buffer.from('0102', 'hex')), { _type: 'ProtobufEncoded', key: '0102' });
  });
});

describe('transaction ids', () => {
  it('formats and parses shard.realm.num-sss-nnn', () => {
    assert.equal(formatTransactionId(8n, 1234567890000000006n), '0.0.8-1234567890-000000006');
    assert.deepEqual(parseTransactionId('0.0.8-1234567890-6', { shard: 0n, realm: 0n }), {
      ok: true,
      value: { payer: 8n, validStartNs: 1234567890000000006n },
    });
    assert.deepEqual(parseTransactionId('0.0.8-1234567890', { shard: 0n, realm: 0n }), { ok: false, reason: 'format' });
    assert.deepEqual(parseTransactionId('0.0.8-1234567890-0000000001', { shard: 0n, realm: 0n }), { ok: false, reason: 'format' });
    assert.deepEqual(parseTransactionId('0.65536.8-1-1', { shard: 0n, realm: 0n }), { ok: false, reason: 'entity', entity: '0.65536.8' });
  });
});

describe('names of codes', () => {
  it('maps result codes and transaction types', () => {
    assert.equal(resultName(22), 'SUCCESS');
    assert.equal(resultName(33), 'CONTRACT_REVERT_EXECUTED');
    assert.equal(resultName(9999), 'UNKNOWN');
    assert.ok(isSuccessful(220) && !isSuccessful(21));
    assert.equal(transactionTypeName(14), 'CRYPTOTRANSFER');
    assert.equal(transactionTypeName(1), 'UNKNOWN');
    assert.equal(transactionTypeId('cryptoTransfer'), 14);
    assert.equal(transactionTypeId('nope'), undefined);
  });
});
