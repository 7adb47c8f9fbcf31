/**
 * The scenario's hollow accounts: a CryptoTransfer to an EVM address alias creates the account in a
 * preceding child record (a CryptoCreate with the address as its alias, no key, the memo
 * "lazy-created account"; the record's evm_address 21), the parent's record crediting the new
 * account's number; later the account pays a transfer signed with its ECDSA key, which completes it
 * (a child CryptoUpdate setting the key), and another one as a complete account. The importer's CryptoCreate rule: a 20-byte alias without a key
 * leaves `key` and `public_key` NULL and gives `alias` and `evm_address` the address.
 */
import { bytes, int, message, sint, string } from '../protoWriter.js';
import { aliasRef, duration, entityRef, keyBytes, transferList } from './hapi.js';
import { createAccount, transfer } from './crypto.js';
import { type ScenarioLedger, TransactionType } from './ledger.js';

const LAZY_MEMO = 'lazy-created account';
const AUTO_RENEW_SECONDS = 7_776_000n;

/** Creates `count` hollow accounts from one funded account, completes each, and has each pay a transfer. */
export function hollowSection(ledger: ScenarioLedger, count: number): void {
  const funder = createAccount(ledger, { memo: 'hollow funder', initialBalance: 5_000_000_000n });
  const hollow: { id: bigint; evm: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const evm = ledger.rng.bytes(20);
    const id = ledger.newId();
    const amount = BigInt(ledger.rng.between(100_000_000, 900_000_000));
    const ts = ledger.nextTimestamp();
    const childTs = ts - 1n;
    const createBody = Buffer.concat([duration(9, AUTO_RENEW_SECONDS), string(13, LAZY_MEMO), int(14, -1), bytes(18, evm)]);
    ledger.submit(
      ts,
      {
        payer: funder,
        memo: '',
        type: TransactionType.CRYPTOTRANSFER,
        // the body names the receiver by its alias; the record by the number it got
        data: message(1, message(1, entityRef(1, funder), sint(2, -amount)), message(1, aliasRef(1, evm), sint(2, amount))),
        transfers: [
          [funder, -amount],
          [id, amount],
        ],
        entityId: null,
      },
      [
        {
          ts: childTs,
          before: true,
          submission: {
            payer: funder,
            nonce: 1,
            memo: '',
            type: TransactionType.CRYPTOCREATEACCOUNT,
            data: createBody,
            receipt: [entityRef(2, id)],
            recordExtra: [bytes(21, evm)],
            entityId: id,
            apply: () =>
              ledger.createEntity(id, childTs, {
                alias: evm,
                auto_renew_period: AUTO_RENEW_SECONDS,
                balance: 0n,
                balance_timestamp: childTs,
                ethereum_nonce: 0n,
                evm_address: evm,
                max_automatic_token_associations: -1,
                memo: LAZY_MEMO,
                receiver_sig_required: false,
              }),
          },
        },
      ],
    );
    hollow.push({ id, evm });
  }
  for (const [i, { id }] of hollow.entries()) {
    completeByPaying(ledger, id, funder, i);
    transfer(ledger, id, funder, BigInt(ledger.rng.between(1, 50_000_000)));
  }
}

/**
 * The hollow account's first transaction, a transfer it pays and signs with its ECDSA key: the
 * network completes the account in a preceding child record, a CryptoUpdate {accountIDToUpdate 2,
 * key 3} setting that key, which the importer applies as any CryptoUpdate.
 */
function completeByPaying(ledger: ScenarioLedger, id: bigint, to: bigint, i: number): void {
  // a compressed secp256k1 key: what the importer keeps as public_key (hex) of an ECDSA Key
  const raw = Buffer.concat([Buffer.from([2 + (i % 2)]), ledger.rng.bytes(32)]);
  const key = keyBytes('ecdsa', raw);
  const amount = BigInt(ledger.rng.between(1, 50_000_000));
  const ts = ledger.nextTimestamp();
  const childTs = ts - 1n;
  ledger.submit(
    ts,
    {
      payer: id,
      memo: '',
      type: TransactionType.CRYPTOTRANSFER,
      data: transferList(1, [
        [id, -amount],
        [to, amount],
      ]),
      transfers: [
        [id, -amount],
        [to, amount],
      ],
      entityId: null,
    },
    [
      {
        ts: childTs,
        before: true,
        submission: {
          payer: id,
          nonce: 1,
          memo: '',
          type: TransactionType.CRYPTOUPDATEACCOUNT,
          data: Buffer.concat([entityRef(2, id), message(3, key)]),
          entityId: id,
          apply: () => ledger.updateEntity(id, childTs, { key, public_key: raw.toString('hex'), deleted: false }),
        },
      },
    ],
  );
}
