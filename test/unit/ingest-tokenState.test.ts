/**
 * The token applier without a database: the token bodies and records read from the bytes the
 * synthetic stream writes (and packed or unpacked serial lists), and the in-memory merge of a file's
 * transactions: versions closed or merged, balances, supply, NFT owners and allowances, treasury moves.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { flattenNftTransfers, readTokenCreate, readTokenRecord, readTokenSerials } from '../../src/ingest/proto/tokenBodies.js';
import { readCryptoTransferBody } from '../../src/ingest/proto/cryptoTransferBody.js';
import { readRecordOutcome, readTransactionBody } from '../../src/ingest/proto/transactionDetails.js';
import { TokenState } from '../../src/ingest/state/tokens/apply.js';
import { tokenTransactionOf } from '../../src/ingest/state/tokens/decode.js';
import { nftKey, tokenAccountKey, tokenKey } from '../../src/ingest/state/tokens/rows.js';
import { touchedKeys } from '../../src/ingest/state/tokens/touched.js';
import { type DecodedTransaction, nftTransferJson } from '../../src/ingest/writers/transactionRows.js';
import { int, message } from '../../tools/stream/protoWriter.js';
import { keyOf, type ScriptedItem, TokenScript } from '../../tools/stream/tokenTransactions.js';

const TREASURY = 9001n;
const ALICE = 9002n;
const BOB = 9003n;
const FT = 9100n;
const NFT = 9101n;
const id = (num: bigint) => encodeEntityId(0n, 0n, num);

function decoded(item: ScriptedItem, index = 0): DecodedTransaction {
  return {
    consensusTimestamp: item.consensusTimestamp,
    parentConsensusTimestamp: null,
    body: readTransactionBody(item.transaction)!,
    outcome: readRecordOutcome(item.record),
    index,
    record: item.record,
  };
}

/** Applies the script's items as one file does, and returns the state. */
function run(items: ScriptedItem[], state = new TokenState(true)): TokenState {
  for (const item of items) {
    const t = tokenTransactionOf(decoded(item));
    if (t) state.apply(t);
  }
  return state;
}

function nftToken(s: TokenScript) {
  return s.tokenCreate(TREASURY, { token: NFT, treasury: TREASURY, name: 'N', symbol: 'N' });
}

describe('token bodies', () => {
  it('reads a TokenCreate body with its keys, supply and type', () => {
    const s = new TokenScript(1_000n, 3n);
    const item = s.tokenCreate(TREASURY, {
      token: FT,
      treasury: TREASURY,
      name: 'Fungible',
      symbol: 'FUN',
      decimals: 8n,
      initialSupply: 5_000n,
      freezeKey: true,
      freezeDefault: true,
      maxSupply: 10_000n,
    });
    const body = readTokenCreate(decoded(item).body.data!);
    assert.equal(body.name, 'Fungible');
    assert.equal(body.symbol, 'FUN');
    assert.equal(body.decimals, 8n);
    assert.equal(body.initialSupply, 5_000n);
    assert.equal(body.treasury, id(TREASURY));
    assert.deepEqual(body.freezeKey, keyOf('FUN freeze'));
    assert.equal(body.kycKey, null);
    assert.equal(body.freezeDefault, true);
    assert.equal(body.supplyType, 1);
    assert.equal(body.maxSupply, 10_000n);
    assert.equal(body.tokenType, 0);
  });

  it('reads serial numbers packed and one per field', () => {
    const token = message(1, int(3, NFT));
    const unpacked = Buffer.concat([token, int(3, 4n), int(3, 5n)]);
    const packed = Buffer.concat([token, message(3, Buffer.from([4, 5, 0xac, 0x02]))]);
    assert.deepEqual(readTokenSerials('burn', unpacked), { token: id(NFT), serials: [4n, 5n] });
    assert.deepEqual(readTokenSerials('burn', packed), { token: id(NFT), serials: [4n, 5n, 300n] });
  });

  it("reads a mint's record: new total supply, serials and NFT transfers without a sender", () => {
    const s = new TokenScript(1_000n, 3n);
    const item = s.mintNfts(TREASURY, NFT, TREASURY, [Buffer.from('a'), Buffer.from('b')], 7n, 9n);
    const record = readTokenRecord(item.record);
    assert.equal(record.newTotalSupply, 9n);
    assert.deepEqual(record.serialNumbers, [7n, 8n]);
    assert.deepEqual(flattenNftTransfers(readRecordOutcome(item.record).tokenTransfers), [
      { tokenId: id(NFT), sender: null, receiver: id(TREASURY), serial: 7n, isApproval: false },
      { tokenId: id(NFT), sender: null, receiver: id(TREASURY), serial: 8n, isApproval: false },
    ]);
  });

  it('gives a failed transaction no token effects', () => {
    const s = new TokenScript(1_000n, 3n);
    assert.equal(tokenTransactionOf(decoded(s.associate(ALICE, [FT], 7))), null);
    assert.notEqual(tokenTransactionOf(decoded(s.associate(ALICE, [FT]))), null);
  });

  it('collects the rows a file touches, and the NFT treasury moves', () => {
    const s = new TokenScript(1_000n, 3n);
    s.associate(ALICE, [NFT]);
    s.transfer(TREASURY, [], [{ token: NFT, sender: TREASURY, receiver: ALICE, serial: 4n }]);
    s.updateToken(TREASURY, NFT, { treasury: BOB }, { token: NFT, sender: TREASURY, receiver: BOB, serial: -1n });
    const keys = touchedKeys(s.items.map((i) => tokenTransactionOf(decoded(i))!));
    assert.deepEqual([...keys.tokens], [id(NFT)]);
    assert.deepEqual(
      [...keys.tokenAccounts.values()],
      [
        [id(ALICE), id(NFT)],
        [id(TREASURY), id(NFT)],
        [id(BOB), id(NFT)],
      ],
    );
    assert.deepEqual([...keys.nfts.values()], [[id(NFT), 4n]]);
    assert.deepEqual([...keys.treasuryMoves.values()], [[id(NFT), id(TREASURY)]]);
  });
});

describe('token state merge', () => {
  it('merges a mint and its transfer to the treasury into one version', () => {
    const s = new TokenScript(1_000n, 3n);
    nftToken(s);
    const mint = s.mintNfts(TREASURY, NFT, TREASURY, [Buffer.from('m')], 1n, 1n);
    const state = run(s.items);
    const nft = state.nfts.get(nftKey(id(NFT), 1n))!;
    assert.equal(nft.account_id, id(TREASURY));
    assert.equal(nft.created_timestamp, mint.consensusTimestamp);
    assert.deepEqual(nft.timestamp_range, { lower: mint.consensusTimestamp, upper: null });
    assert.equal(state.nfts.closed.length, 0);
    assert.equal(state.tokens.get(tokenKey(id(NFT)))!.total_supply, 1n);
    assert.equal(state.tokenAccounts.get(tokenAccountKey(id(TREASURY), id(NFT)))!.balance, 1n);
  });

  it('keeps an approval through a metadata update, clears it on deleting the allowance and on a transfer', () => {
    const s = new TokenScript(1_000n, 3n);
    nftToken(s);
    s.mintNfts(TREASURY, NFT, TREASURY, [Buffer.from('m1'), Buffer.from('m2')], 1n, 2n);
    s.approveNfts(TREASURY, NFT, BOB, [1n, 2n], ALICE);
    const state = run(s.items);
    assert.equal(state.nfts.get(nftKey(id(NFT), 1n))!.spender, id(BOB));
    assert.equal(state.nfts.get(nftKey(id(NFT), 1n))!.delegating_spender, id(ALICE));

    const later = new TokenScript(5_000_000_000n, 3n);
    later.deleteNftAllowances(TREASURY, NFT, [1n]);
    later.transfer(TREASURY, [], [{ token: NFT, sender: TREASURY, receiver: ALICE, serial: 2n }]);
    run(later.items, state);
    assert.equal(state.nfts.get(nftKey(id(NFT), 1n))!.spender, null);
    assert.equal(state.nfts.get(nftKey(id(NFT), 1n))!.account_id, id(TREASURY));
    const two = state.nfts.get(nftKey(id(NFT), 2n))!;
    assert.deepEqual([two.account_id, two.spender, two.delegating_spender], [id(ALICE), null, null]);
    // mint, approval, and the last change of each: two closed versions per serial
    assert.equal(state.nfts.closed.length, 4);
  });

  it('changes balances only of existing associations, in place', () => {
    const s = new TokenScript(1_000n, 3n);
    s.tokenCreate(TREASURY, { token: FT, treasury: TREASURY, name: 'F', symbol: 'F', initialSupply: 100n });
    s.associate(ALICE, [FT]);
    const transfer = s.transfer(
      TREASURY,
      [
        {
          token: FT,
          transfers: [
            [TREASURY, -30n],
            [ALICE, 20n],
            [BOB, 10n],
          ],
        },
      ],
      [],
    );
    const state = run(s.items);
    const alice = state.tokenAccounts.get(tokenAccountKey(id(ALICE), id(FT)))!;
    assert.equal(alice.balance, 20n);
    assert.equal(alice.balance_timestamp, transfer.consensusTimestamp);
    assert.equal(alice.timestamp_range.upper, null);
    assert.notEqual(alice.timestamp_range.lower, transfer.consensusTimestamp);
    assert.equal(state.tokenAccounts.get(tokenAccountKey(id(TREASURY), id(FT)))!.balance, 70n);
    assert.equal(state.tokenAccounts.has(tokenAccountKey(id(BOB), id(FT))), false);
  });

  it('moves every NFT of the old treasury on a treasury change, and its count', () => {
    const s = new TokenScript(1_000n, 3n);
    nftToken(s);
    s.associate(BOB, [NFT]);
    s.mintNfts(TREASURY, NFT, TREASURY, [Buffer.from('1'), Buffer.from('2'), Buffer.from('3')], 1n, 3n);
    s.approveNfts(TREASURY, NFT, ALICE, [3n]);
    const update = s.updateToken(
      TREASURY,
      NFT,
      { name: 'Renamed', treasury: BOB },
      { token: NFT, sender: TREASURY, receiver: BOB, serial: -1n },
    );
    const state = run(s.items);
    for (const serial of [1n, 2n, 3n]) {
      const nft = state.nfts.get(nftKey(id(NFT), serial))!;
      assert.deepEqual([nft.account_id, nft.spender, nft.timestamp_range.lower], [id(BOB), null, update.consensusTimestamp]);
    }
    assert.equal(state.tokenAccounts.get(tokenAccountKey(id(TREASURY), id(NFT)))!.balance, 0n);
    assert.equal(state.tokenAccounts.get(tokenAccountKey(id(BOB), id(NFT)))!.balance, 3n);
    const token = state.tokens.get(tokenKey(id(NFT)))!;
    assert.deepEqual([token.name, token.treasury_account_id, token.total_supply], ['Renamed', id(BOB), 3n]);
    assert.equal(state.tokens.closed.length, 1);
    assert.equal(state.tokens.closed[0]!.timestamp_range.upper, update.consensusTimestamp);
    assert.equal(
      nftTransferJson(decoded(update).outcome.tokenTransfers, readCryptoTransferBody(decoded(update).body)),
      `[{"is_approval":false,"receiver_account_id":${id(BOB)},"sender_account_id":${id(TREASURY)},"serial_number":-1,"token_id":${id(NFT)}}]`,
    );
  });

  it('starts associations frozen or not, KYC revoked or not, from the token; freeze and KYC changes are versions', () => {
    const s = new TokenScript(1_000n, 3n);
    s.tokenCreate(TREASURY, { token: FT, treasury: TREASURY, name: 'F', symbol: 'F', freezeKey: true, freezeDefault: true, kycKey: true });
    s.associate(ALICE, [FT]);
    s.accountStatus(TREASURY, 32, FT, ALICE);
    s.accountStatus(TREASURY, 33, FT, ALICE);
    const state = run(s.items);
    const treasury = state.tokenAccounts.get(tokenAccountKey(id(TREASURY), id(FT)))!;
    assert.deepEqual([treasury.freeze_status, treasury.kyc_status], [2, 1]);
    const alice = state.tokenAccounts.get(tokenAccountKey(id(ALICE), id(FT)))!;
    assert.deepEqual([alice.freeze_status, alice.kyc_status], [2, 1]);
    assert.deepEqual(
      state.tokenAccounts.closed.map((r) => [r.freeze_status, r.kyc_status]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    const token = state.tokens.get(tokenKey(id(FT)))!;
    assert.deepEqual([token.freeze_status, token.kyc_status], [1, 2]);
  });

  it("takes a deleted token's balance off its supply when an account dissociates", () => {
    const s = new TokenScript(1_000n, 3n);
    s.tokenCreate(TREASURY, { token: FT, treasury: TREASURY, name: 'F', symbol: 'F', initialSupply: 100n });
    s.associate(ALICE, [FT]);
    s.transfer(
      TREASURY,
      [
        {
          token: FT,
          transfers: [
            [TREASURY, -40n],
            [ALICE, 40n],
          ],
        },
      ],
      [],
    );
    const state = run(s.items);
    // the dissociation's record carries the one transfer that empties the account
    const dissociate = decoded(s.dissociate(ALICE, [FT]));
    dissociate.outcome.tokenTransfers.push({
      tokenId: id(FT),
      transfers: [{ accountId: id(ALICE), amount: -40n, isApproval: false }],
      nftTransfers: [],
    });
    state.apply(tokenTransactionOf(dissociate)!);
    assert.equal(state.tokens.get(tokenKey(id(FT)))!.total_supply, 60n);
    const alice = state.tokenAccounts.get(tokenAccountKey(id(ALICE), id(FT)))!;
    assert.deepEqual([alice.associated, alice.balance], [false, 0n]);
  });

  it('associates the receiver of a claimed airdrop, then moves the amount', () => {
    const s = new TokenScript(1_000n, 3n);
    s.tokenCreate(TREASURY, { token: FT, treasury: TREASURY, name: 'F', symbol: 'F', initialSupply: 100n, kycKey: true });
    const claim = s.claimAirdrop(ALICE, TREASURY, FT, 25n);
    const state = run(s.items);
    const alice = state.tokenAccounts.get(tokenAccountKey(id(ALICE), id(FT)))!;
    assert.deepEqual(
      [alice.associated, alice.automatic_association, alice.created_timestamp, alice.balance, alice.kyc_status],
      [true, false, claim.consensusTimestamp, 25n, 2],
    );
    assert.equal(state.tokenAccounts.get(tokenAccountKey(id(TREASURY), id(FT)))!.balance, 75n);
  });
});
