import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs/minimal.js';
import {
  decodeCustomFeeLimit,
  decodeExchangeRateSet,
  decodeFeeSchedules,
  encodeCustomFeeLimit,
  functionResultSenderAlias,
} from '../../src/domain/protobuf.js';

const id = (num: bigint) => ({ shard: 0n, realm: 0n, num });

describe('protobuf messages', () => {
  it('round-trips CustomFeeLimit and flattens its fees', () => {
    const bytes = encodeCustomFeeLimit({
      account: id(8n),
      fees: [{ amount: 100n }, { amount: 9_000_000_000_000_000_000n - 1n, token: id(1500n) }, { amount: 5n, token: id(0n) }],
    });
    assert.deepEqual(decodeCustomFeeLimit(bytes), [
      { account_id: '0.0.8', amount: 100n, denominating_token_id: null },
      { account_id: '0.0.8', amount: 8_999_999_999_999_999_999n, denominating_token_id: '0.0.1500' },
      { account_id: '0.0.8', amount: 5n, denominating_token_id: '0.0.0' },
    ]);
    assert.deepEqual(decodeCustomFeeLimit(new Uint8Array()), []);
  });

  it('reads the sender alias of a ContractFunctionResult', () => {
    const w = protobuf.Writer.create();
    const account = protobuf.Writer.create()
      .uint32((4 << 3) | 2)
      .bytes(Buffer.from('ab'.repeat(20), 'hex'))
      .finish();
    w.uint32((1 << 3) | 2).bytes(Buffer.from('0102', 'hex')); // another field first
    w.uint32((13 << 3) | 2).bytes(account);
    assert.equal(Buffer.from(functionResultSenderAlias(w.finish())!).toString('hex'), 'ab'.repeat(20));
    assert.equal(functionResultSenderAlias(Buffer.from('ff', 'hex')), null);
  });

  it('decodes exchange rates and the contract-call gas price of fee schedules', () => {
    const rate = (h: number, c: number, exp: number) => {
      const t = protobuf.Writer.create().uint32(8).int64(exp).finish();
      return protobuf.Writer.create()
        .uint32(8)
        .int32(h)
        .uint32(16)
        .int32(c)
        .uint32((3 << 3) | 2)
        .bytes(t)
        .finish();
    };
    const set = protobuf.Writer.create()
      .uint32(10)
      .bytes(rate(1, 12, 100))
      .uint32(18)
      .bytes(rate(2, 30, 200))
      .finish();
    assert.deepEqual(decodeExchangeRateSet(set), {
      current: { hbarEquiv: 1n, centEquiv: 12n, expirationSeconds: 100n },
      next: { hbarEquiv: 2n, centEquiv: 30n, expirationSeconds: 200n },
    });

    const components = protobuf.Writer.create()
      .uint32(8 << 3)
      .int64(852000)
      .finish();
    const feeData = protobuf.Writer.create()
      .uint32((3 << 3) | 2)
      .bytes(components)
      .finish();
    const entry = (functionality: number) =>
      protobuf.Writer.create()
        .uint32(8)
        .int32(functionality)
        .uint32((3 << 3) | 2)
        .bytes(feeData)
        .finish();
    const expiry = protobuf.Writer.create().uint32(8).int64(1_700_000_000).finish();
    const schedule = protobuf.Writer.create().uint32(10).bytes(entry(7)).uint32(10).bytes(entry(6)).uint32(18).bytes(expiry).finish();
    const both = protobuf.Writer.create().uint32(10).bytes(schedule).uint32(18).bytes(schedule).finish();
    const decoded = decodeFeeSchedules(both);
    assert.equal(decoded.current.contractCallGas, 852000n);
    assert.equal(decoded.current.expirySeconds, 1_700_000_000n);
    assert.throws(() => decodeFeeSchedules(Buffer.from('0a', 'hex')));
  });
});
