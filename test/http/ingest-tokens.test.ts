/**
 * The token applier end to end: a signed synthetic stream of token and NFT transactions (token
 * creates, associations, KYC, a mint, token and NFT transfers, an NFT approval, a burn, an automatic
 * association, a failed association) ingested with `lqs ingest --once`, then the account's NFTs and
 * token balances through the API, and the token, token_account and nft rows with their history.
 * The accounts' entity rows come from the fixture: entities are another applier's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeEntityId } from '../../src/domain/entityId.js';
import { writeScriptedStream } from '../../tools/stream/scriptedStream.js';
import { type ScriptedItem, TokenScript } from '../../tools/stream/tokenTransactions.js';
import { get, ingestionSkipReason, useHarness } from '../support/harness.js';
import { ingestOnce } from '../support/ingestRun.js';

const TREASURY = 7001n;
const ALICE = 7002n;
const BOB = 7003n;
const SPENDER = 7004n;
const CAROL = 7005n;
const FUNGIBLE = 7100n;
const NFT = 7101n;
const START = 1767225600_000000000n;

const id = (num: bigint) => encodeEntityId(0n, 0n, num);
const sec = (ns: bigint) => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

describe('ingest: tokens and NFTs', { skip: ingestionSkipReason }, () => {
  const harness = useHarness();
  let dir: string;
  const at: Record<string, ScriptedItem> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lqs-tokens-'));
    const s = new TokenScript(START + 1_000n, 3n);
    at.createFungible = s.tokenCreate(TREASURY, {
      token: FUNGIBLE,
      treasury: TREASURY,
      name: 'Fungible',
      symbol: 'FUN',
      decimals: 2n,
      initialSupply: 1_000_000n,
      freezeKey: true,
      kycKey: true,
    });
    at.createNft = s.tokenCreate(TREASURY, {
      token: NFT,
      treasury: TREASURY,
      name: 'Art',
      symbol: 'ART',
      nonFungible: true,
      pauseKey: true,
    });
    at.associateAlice = s.associate(ALICE, [FUNGIBLE, NFT]);
    at.associateBob = s.associate(BOB, [NFT]);
    at.grantKyc = s.accountStatus(TREASURY, 33, FUNGIBLE, ALICE);
    // file 2
    at.mint = s.mintNfts(
      TREASURY,
      NFT,
      TREASURY,
      ['ipfs://1', 'ipfs://2', 'ipfs://3'].map((m) => Buffer.from(m)),
      1n,
      3n,
    );
    at.toAlice = s.transfer(
      TREASURY,
      [
        {
          token: FUNGIBLE,
          transfers: [
            [TREASURY, -2_500n],
            [ALICE, 2_500n],
          ],
        },
      ],
      [
        { token: NFT, sender: TREASURY, receiver: ALICE, serial: 1n },
        { token: NFT, sender: TREASURY, receiver: ALICE, serial: 2n },
      ],
    );
    at.approve = s.approveNfts(ALICE, NFT, SPENDER, [1n, 2n]);
    at.toBob = s.transfer(ALICE, [], [{ token: NFT, sender: ALICE, receiver: BOB, serial: 2n }]);
    at.burn = s.burnNfts(TREASURY, NFT, TREASURY, [3n], 2n);
    // file 3
    // INVALID_SIGNATURE (7): refused, so no association
    at.failedAssociate = s.associate(BOB, [FUNGIBLE], 7);
    at.toCarol = s.transfer(
      ALICE,
      [
        {
          token: FUNGIBLE,
          transfers: [
            [ALICE, -500n],
            [CAROL, 500n],
          ],
        },
      ],
      [],
      [[FUNGIBLE, CAROL]],
    );
    const { addressBook } = await writeScriptedStream({ out: dir, items: s.items, perFile: 5 });
    await harness().prepare({ accounts: [TREASURY, ALICE, BOB, SPENDER, CAROL].map((num) => ({ num: Number(num) })) });
    await ingestOnce(harness().db, harness().config, dir, { addressBook });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lists an account's NFTs with their spender, owner and times", async () => {
    const alice = await get(harness(), '/api/v1/accounts/0.0.7002/nfts');
    assert.equal(alice.status, 200, alice.text);
    assert.deepEqual(
      alice.body.nfts.map((n: Record<string, unknown>) => ({ ...n })),
      [
        {
          account_id: '0.0.7002',
          created_timestamp: sec(at.mint!.consensusTimestamp),
          delegating_spender: null,
          deleted: false,
          metadata: Buffer.from('ipfs://1').toString('base64'),
          modified_timestamp: sec(at.approve!.consensusTimestamp),
          serial_number: 1,
          spender: '0.0.7004',
          token_id: '0.0.7101',
        },
      ],
    );
    // serial 2 was approved to the spender, then Bob received it: the transfer cleared the approval
    const bob = await get(harness(), '/api/v1/accounts/0.0.7003/nfts');
    assert.deepEqual(
      bob.body.nfts.map((n: Record<string, unknown>) => [n.serial_number, n.spender, n.modified_timestamp]),
      [[2, null, sec(at.toBob!.consensusTimestamp)]],
    );
    // the treasury's last NFT was burned
    assert.deepEqual((await get(harness(), '/api/v1/accounts/0.0.7001/nfts')).body.nfts, []);
  });

  it("gives the accounts' token balances", async () => {
    const balances = async (num: bigint) => (await get(harness(), `/api/v1/accounts/0.0.${num}`)).body.balance.tokens;
    assert.deepEqual(await balances(ALICE), [
      { token_id: '0.0.7100', balance: 2_000 },
      { token_id: '0.0.7101', balance: 1 },
    ]);
    assert.deepEqual(await balances(TREASURY), [
      { token_id: '0.0.7100', balance: 997_500 },
      { token_id: '0.0.7101', balance: 0 },
    ]);
    assert.deepEqual(await balances(BOB), [{ token_id: '0.0.7101', balance: 1 }]);
    assert.deepEqual(await balances(CAROL), [{ token_id: '0.0.7100', balance: 500 }]);
  });

  it('keeps the tokens with their supply, statuses and versions', async () => {
    const tokens = await harness().db.query<Record<string, unknown>>(
      `select token_id, type::text, total_supply, initial_supply, decimals, freeze_status, kyc_status, pause_status::text,
              treasury_account_id, name, symbol, created_timestamp, lower(timestamp_range) as since
         from token order by token_id`,
    );
    assert.deepEqual(tokens, [
      {
        token_id: id(FUNGIBLE),
        type: 'FUNGIBLE_COMMON',
        total_supply: 1_000_000n,
        initial_supply: 1_000_000n,
        decimals: 2n,
        freeze_status: 2,
        kyc_status: 2,
        pause_status: 'NOT_APPLICABLE',
        treasury_account_id: id(TREASURY),
        name: 'Fungible',
        symbol: 'FUN',
        created_timestamp: at.createFungible!.consensusTimestamp,
        since: at.createFungible!.consensusTimestamp,
      },
      {
        token_id: id(NFT),
        type: 'NON_FUNGIBLE_UNIQUE',
        total_supply: 2n,
        initial_supply: 0n,
        decimals: 0n,
        freeze_status: 0,
        kyc_status: 0,
        pause_status: 'UNPAUSED',
        treasury_account_id: id(TREASURY),
        name: 'Art',
        symbol: 'ART',
        created_timestamp: at.createNft!.consensusTimestamp,
        // a new total supply changes the row in place
        since: at.createNft!.consensusTimestamp,
      },
    ]);
  });

  it('keeps the associations, their statuses and the versions they closed', async () => {
    const rows = await harness().db.query<Record<string, unknown>>(
      `select account_id, token_id, associated, automatic_association, freeze_status, kyc_status, balance, created_timestamp,
              lower(timestamp_range) as since, upper(timestamp_range) as until, 'current' as kind
         from token_account
       union all
       select account_id, token_id, associated, automatic_association, freeze_status, kyc_status, balance, created_timestamp,
              lower(timestamp_range), upper(timestamp_range), 'history'
         from token_account_history
       order by account_id, token_id, since`,
    );
    const row = (account: bigint, token: bigint, rest: Record<string, unknown>) => ({ account_id: account, token_id: token, ...rest });
    const ts = (name: string) => at[name]!.consensusTimestamp;
    assert.deepEqual(
      rows.map((r) => ({ ...r, account_id: r.account_id, token_id: r.token_id })),
      [
        row(id(TREASURY), id(FUNGIBLE), {
          associated: true,
          automatic_association: false,
          freeze_status: 2,
          kyc_status: 1,
          balance: 997_500n,
          created_timestamp: ts('createFungible'),
          since: ts('createFungible'),
          until: null,
          kind: 'current',
        }),
        row(id(TREASURY), id(NFT), {
          associated: true,
          automatic_association: false,
          freeze_status: 0,
          kyc_status: 0,
          balance: 0n,
          created_timestamp: ts('createNft'),
          since: ts('createNft'),
          until: null,
          kind: 'current',
        }),
        // associated with KYC revoked (the token has a KYC key), then granted: a closed version and the current one
        row(id(ALICE), id(FUNGIBLE), {
          associated: true,
          automatic_association: false,
          freeze_status: 2,
          kyc_status: 2,
          balance: 0n,
          created_timestamp: ts('associateAlice'),
          since: ts('associateAlice'),
          until: ts('grantKyc'),
          kind: 'history',
        }),
        row(id(ALICE), id(FUNGIBLE), {
          associated: true,
          automatic_association: false,
          freeze_status: 2,
          kyc_status: 1,
          balance: 2_000n,
          created_timestamp: ts('associateAlice'),
          since: ts('grantKyc'),
          until: null,
          kind: 'current',
        }),
        row(id(ALICE), id(NFT), {
          associated: true,
          automatic_association: false,
          freeze_status: 0,
          kyc_status: 0,
          balance: 1n,
          created_timestamp: ts('associateAlice'),
          since: ts('associateAlice'),
          until: null,
          kind: 'current',
        }),
        // the failed association of Bob with the fungible token left nothing
        row(id(BOB), id(NFT), {
          associated: true,
          automatic_association: false,
          freeze_status: 0,
          kyc_status: 0,
          balance: 1n,
          created_timestamp: ts('associateBob'),
          since: ts('associateBob'),
          until: null,
          kind: 'current',
        }),
        row(id(CAROL), id(FUNGIBLE), {
          associated: true,
          automatic_association: true,
          freeze_status: 2,
          kyc_status: 2,
          balance: 500n,
          created_timestamp: ts('toCarol'),
          since: ts('toCarol'),
          until: null,
          kind: 'current',
        }),
      ],
    );
  });

  it("keeps each NFT's versions and the transactions' NFT transfers", async () => {
    const versions = await harness().db.query<{
      serial_number: bigint;
      account_id: bigint | null;
      spender: bigint | null;
      deleted: boolean;
      since: bigint;
    }>(
      `select serial_number, account_id, spender, deleted, lower(timestamp_range) as since from nft
       union all
       select serial_number, account_id, spender, deleted, lower(timestamp_range) from nft_history
       order by serial_number, since`,
    );
    const ts = (name: string) => at[name]!.consensusTimestamp;
    assert.deepEqual(
      versions.map((v) => [v.serial_number, v.account_id, v.spender, v.deleted, v.since]),
      [
        [1n, id(TREASURY), null, false, ts('mint')],
        [1n, id(ALICE), null, false, ts('toAlice')],
        [1n, id(ALICE), id(SPENDER), false, ts('approve')],
        [2n, id(TREASURY), null, false, ts('mint')],
        [2n, id(ALICE), null, false, ts('toAlice')],
        [2n, id(ALICE), id(SPENDER), false, ts('approve')],
        [2n, id(BOB), null, false, ts('toBob')],
        [3n, id(TREASURY), null, false, ts('mint')],
        [3n, null, null, true, ts('burn')],
      ],
    );
    const [transfer] = await harness().db.query<{ nft_transfer: unknown }>(
      'select nft_transfer from transaction where consensus_timestamp = $1',
      [ts('toBob')],
    );
    assert.deepEqual(transfer!.nft_transfer, [
      {
        is_approval: false,
        receiver_account_id: Number(id(BOB)),
        sender_account_id: Number(id(ALICE)),
        serial_number: 2,
        token_id: Number(id(NFT)),
      },
    ]);
  });
});
