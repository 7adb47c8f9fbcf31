/**
 * The synthetic stream with `ledger`: its first transactions create the topics, the account pool and
 * the tokens the rest uses, decoded by the service's readers and seen by the state appliers' decoders
 * as the creations, associations and token transfers they apply, and every record balances.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordItem } from '../../src/ingest/recordFile.js';
import { EntityChanges } from '../../src/ingest/state/entities/entityVersion.js';
import { addTransactionEntities } from '../../src/ingest/state/entities/transactionEntities.js';
import { tokenTransactionOf } from '../../src/ingest/state/tokens/decode.js';
import { recordItemRows } from '../../src/ingest/writers/transactionRows.js';
import { LEDGER, setupCount } from '../../tools/stream/ledgerSetup.js';
import { TransactionGenerator } from '../../tools/stream/transactions.js';

const START = 1767225600000000000n;
const STEADY = 2000;

function generated(options: { ledger: boolean }, count: number) {
  const generator = new TransactionGenerator(3, [3n, 4n, 5n], options);
  return Array.from({ length: count }, (_, i) => generator.next(START + BigInt(i) * 10_000n));
}

describe('synthetic stream with its ledger', () => {
  const items = generated({ ledger: true }, setupCount() + STEADY);
  const recordItems: RecordItem[] = items.map((item) => ({
    consensusTimestamp: item.consensusTimestamp,
    transactionBytes: item.transaction,
    recordBytes: item.record,
    parentConsensusTimestamp: null,
    nonce: 0,
    scheduled: false,
    contractResult: null,
  }));
  const rows = recordItemRows('ledger', recordItems, { shard: 0n, realm: 0n });

  it('creates the topics, then the account pool, then the tokens, all successful and balanced', () => {
    const types = items.slice(0, setupCount()).map((i) => i.type);
    const first = (type: string) => types.indexOf(type as (typeof types)[number]);
    assert.equal(types.filter((t) => t === 'CONSENSUSCREATETOPIC').length, LEDGER.topics);
    assert.equal(types.filter((t) => t === 'CRYPTOCREATEACCOUNT').length, LEDGER.accounts);
    assert.equal(types.filter((t) => t === 'TOKENCREATION').length, LEDGER.tokens);
    assert.equal(rows.decoded.filter((d) => d.body.type === 29).length, LEDGER.tokens);
    assert.equal(types.filter((t) => t === 'TOKENASSOCIATE').length, LEDGER.holders);
    assert.ok(first('CONSENSUSCREATETOPIC') < first('CRYPTOCREATEACCOUNT'));
    assert.ok(first('CRYPTOCREATEACCOUNT') < first('TOKENCREATION') && first('TOKENCREATION') < first('TOKENASSOCIATE'));
    for (const d of rows.decoded) {
      assert.equal(d.outcome.result, 22);
      assert.equal(
        d.outcome.transfers.reduce((sum, t) => sum + t.amount, 0n),
        0n,
      );
      // a TokenCreate mints its initial supply to the treasury; every other token transfer balances
      if (d.body.type !== 29)
        for (const list of d.outcome.tokenTransfers)
          assert.equal(
            list.transfers.reduce((sum, t) => sum + t.amount, 0n),
            0n,
          );
    }
  });

  it('gives the entity applier a new account for every id of the pool, the topics and the tokens', () => {
    const changes = new EntityChanges();
    for (const d of rows.decoded) addTransactionEntities(changes, d, { hapi: { major: 0, minor: 56 } });
    const created = (first: bigint, count: number, type: string) => {
      for (let n = 0; n < count; n++) {
        const versions = changes.versions.get(first + BigInt(n));
        assert.ok(versions, `0.0.${first + BigInt(n)} created`);
        assert.equal(versions[0]!.attributes.type, type);
        assert.notEqual(versions[0]!.range, null);
      }
    };
    created(LEDGER.firstAccount, LEDGER.accounts, 'ACCOUNT');
    created(LEDGER.firstTopic, LEDGER.topics, 'TOPIC');
    created(LEDGER.firstToken, LEDGER.tokens, 'TOKEN');
    const account = changes.current(LEDGER.firstAccount + 7n)!;
    assert.equal(account.attributes.key?.length, 34);
    assert.equal(account.attributes.auto_renew_period, 7_776_000n);
  });

  it("gives the token applier the creations, the holders' associations and transfers between holders", () => {
    const token = rows.decoded.map(tokenTransactionOf).filter((t) => t !== null);
    const ops = (kind: string) => token.filter((t) => t.op.kind === kind);
    assert.deepEqual(
      ops('create').map((t) => t.op.kind === 'create' && t.op.token),
      Array.from({ length: LEDGER.tokens }, (_, k) => LEDGER.firstToken + BigInt(k)),
    );
    assert.equal(ops('associate').length, LEDGER.holders);
    const holders = (a: bigint) => a >= LEDGER.firstHolder && a < LEDGER.firstHolder + BigInt(LEDGER.holders);
    const steady = token.filter((t) => t.consensusTimestamp >= items[setupCount()]!.consensusTimestamp);
    // a fifth of the steady mix moves a token between two holders
    assert.ok(steady.length > STEADY / 8 && steady.length < STEADY / 3, `${steady.length} token transfers`);
    for (const t of steady) {
      assert.equal(t.fungible.length, 1);
      assert.ok(t.fungible[0]!.transfers.every((a) => holders(a.accountId)));
      assert.equal(t.payer, t.fungible[0]!.transfers.find((a) => a.amount < 0n)!.accountId);
    }
  });

  it('leaves the stream without its ledger as it was: transfers and messages only', () => {
    const plain = generated({ ledger: false }, 300);
    assert.deepEqual([...new Set(plain.map((i) => i.type))].sort(), ['CONSENSUSSUBMITMESSAGE', 'CRYPTOTRANSFER']);
  });
});
