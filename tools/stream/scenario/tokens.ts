/**
 * The scenario's token sections. `tokens`: fungible tokens created (one with only admin and
 * supply keys, one with freeze and KYC keys), associated and transferred. `nfts`: a non-fungible
 * token created, associated, minted, transferred, approved to a spender (and transferred by it),
 * and burned. The importer's rules: TokenCreate writes the token, its TOKEN entity (admin key as
 * `key`, memo, auto-renew, expiry) and the treasury's association (unfrozen and KYC-granted when
 * the token has those keys); TokenAssociate one association per token (frozen by the freeze
 * default, KYC revoked when the token has a KYC key, as the token's statuses say); TokenMint new NFTs owned by the treasury and
 * the receipt's new total supply; a transfer moves an NFT and clears its spender; an approval sets
 * the spender; TokenBurn marks the NFT deleted without an owner.
 *
 * TokenCreate: name 1, symbol 2, decimals 3, initialSupply 4, treasury 5, adminKey 6, kycKey 7,
 * freezeKey 8, supplyKey 10, freezeDefault 11, expiry 13, autoRenewAccount 14, autoRenewPeriod 15,
 * memo 16, tokenType 17, supplyType 18, maxSupply 19. TokenAssociate: account 1, tokens 2.
 * TokenMint: token 1, metadata 3. TokenBurn: token 1, serialNumbers 3. CryptoApproveAllowance:
 * nftAllowances 2 {tokenId 1, owner 2, spender 3, serial_numbers 4}.
 */
import { bytes, int, message, string } from '../protoWriter.js';
import { createAccount } from './crypto.js';
import { duration, entityRef, keyBytes, type NftMove, timestamp, tokenTransferList } from './hapi.js';
import { FreezeStatus, KycStatus, type ScenarioLedger, TransactionType } from './ledger.js';

const AUTO_RENEW_SECONDS = 7_776_000n;

interface TokenSettings {
  name: string;
  symbol: string;
  treasury: bigint;
  nft: boolean;
  decimals?: bigint;
  initialSupply?: bigint;
  maxSupply?: bigint;
  freezeKey?: boolean;
  kycKey?: boolean;
  memo: string;
}

function key(ledger: ScenarioLedger): { key: Buffer; publicKey: string } {
  const raw = ledger.rng.bytes(32);
  return { key: keyBytes('ed25519', raw), publicKey: raw.toString('hex') };
}

export function createToken(ledger: ScenarioLedger, s: TokenSettings): bigint {
  const ts = ledger.nextTimestamp();
  const id = ledger.newId();
  const admin = key(ledger);
  const supply = key(ledger);
  const freeze = s.freezeKey ? key(ledger) : null;
  const kyc = s.kycKey ? key(ledger) : null;
  const decimals = s.nft ? 0n : (s.decimals ?? 2n);
  const initialSupply = s.nft ? 0n : (s.initialSupply ?? 1_000_000n);
  const expiry = ts + AUTO_RENEW_SECONDS * 1_000_000_000n;
  const data = Buffer.concat([
    string(1, s.name),
    string(2, s.symbol),
    ...(decimals !== 0n ? [int(3, decimals)] : []),
    ...(initialSupply !== 0n ? [int(4, initialSupply)] : []),
    entityRef(5, s.treasury),
    message(6, admin.key),
    ...(kyc ? [message(7, kyc.key)] : []),
    ...(freeze ? [message(8, freeze.key)] : []),
    message(10, supply.key),
    timestamp(13, expiry),
    entityRef(14, s.treasury),
    duration(15, AUTO_RENEW_SECONDS),
    string(16, s.memo),
    ...(s.nft ? [int(17, 1)] : []),
    ...(s.maxSupply !== undefined ? [int(18, 1), int(19, s.maxSupply)] : []),
  ]);
  ledger.submit(ts, {
    payer: s.treasury,
    memo: '',
    type: TransactionType.TOKENCREATION,
    data,
    receipt: [entityRef(10, id)],
    tokenTransfers: initialSupply > 0n ? [{ token: id, amounts: [[s.treasury, initialSupply]] }] : [],
    // automatic_token_associations (14): the treasury's
    recordExtra: [message(14, entityRef(1, id), entityRef(2, s.treasury))],
    entityId: id,
    apply: () => {
      ledger.createEntity(id, ts, {
        auto_renew_account_id: s.treasury,
        auto_renew_period: AUTO_RENEW_SECONDS,
        expiration_timestamp: expiry,
        key: admin.key,
        memo: s.memo,
        public_key: admin.publicKey,
        type: 'TOKEN',
      });
      ledger.createToken({
        created_timestamp: ts,
        decimals,
        fee_schedule_key: null,
        freeze_default: false,
        freeze_key: freeze?.key ?? null,
        // what a new association gets: frozen by the freeze default, KYC revoked, when the token has those keys
        freeze_status: freeze ? FreezeStatus.UNFROZEN : FreezeStatus.NOT_APPLICABLE,
        initial_supply: initialSupply,
        kyc_key: kyc?.key ?? null,
        kyc_status: kyc ? KycStatus.REVOKED : KycStatus.NOT_APPLICABLE,
        // the body's maxSupply, 0 when it has none (infinite supply)
        max_supply: s.maxSupply ?? 0n,
        metadata: Buffer.alloc(0),
        metadata_key: null,
        name: s.name,
        pause_key: null,
        pause_status: 'NOT_APPLICABLE',
        supply_key: supply.key,
        supply_type: s.maxSupply !== undefined ? 'FINITE' : 'INFINITE',
        symbol: s.symbol,
        timestamp_range: `[${ts},)`,
        token_id: id,
        total_supply: initialSupply,
        treasury_account_id: s.treasury,
        type: s.nft ? 'NON_FUNGIBLE_UNIQUE' : 'FUNGIBLE_COMMON',
        wipe_key: null,
      });
      ledger.associate(
        s.treasury,
        id,
        ts,
        freeze ? FreezeStatus.UNFROZEN : FreezeStatus.NOT_APPLICABLE,
        kyc ? KycStatus.GRANTED : KycStatus.NOT_APPLICABLE,
      );
    },
  });
  return id;
}

export function associate(ledger: ScenarioLedger, account: bigint, tokens: bigint[]): void {
  const ts = ledger.nextTimestamp();
  ledger.submit(ts, {
    payer: account,
    memo: '',
    type: TransactionType.TOKENASSOCIATE,
    data: Buffer.concat([entityRef(1, account), ...tokens.map((t) => entityRef(2, t))]),
    entityId: account,
    apply: () => {
      // the handler leaves the statuses to the upsert, which takes the token's
      for (const t of tokens) {
        const token = ledger.token(t);
        ledger.associate(account, t, ts, token.freeze_status as number, token.kyc_status as number);
      }
    },
  });
}

function tokenTransfer(ledger: ScenarioLedger, token: bigint, from: bigint, to: bigint, amount: bigint): void {
  const ts = ledger.nextTimestamp();
  const moves = {
    token,
    amounts: [
      [from, -amount],
      [to, amount],
    ] as [bigint, bigint][],
  };
  ledger.submit(ts, {
    payer: from,
    memo: '',
    type: TransactionType.CRYPTOTRANSFER,
    data: Buffer.concat([message(1), tokenTransferList(2, moves)]),
    tokenTransfers: [moves],
    entityId: null,
  });
}

/** Two fungible tokens, their associations and transfers between the holders. */
export function tokensSection(ledger: ScenarioLedger, transfers: number): void {
  const treasury = createAccount(ledger, { memo: 'token treasury', initialBalance: 2_000_000_000n });
  const holders = [createAccount(ledger, { initialBalance: 500_000_000n }), createAccount(ledger, { initialBalance: 500_000_000n })];
  const plain = createToken(ledger, { name: 'Scenario Coin', symbol: 'SCOIN', treasury, nft: false, memo: 'plain token' });
  const guarded = createToken(ledger, {
    name: 'Guarded Coin',
    symbol: 'GCOIN',
    treasury,
    nft: false,
    decimals: 4n,
    initialSupply: 50_000_000n,
    freezeKey: true,
    kycKey: true,
    memo: 'token with freeze and KYC keys',
  });
  associate(ledger, holders[0]!, [plain, guarded]);
  associate(ledger, holders[1]!, [plain]);
  tokenTransfer(ledger, plain, treasury, holders[0]!, 10_000n);
  tokenTransfer(ledger, plain, treasury, holders[1]!, 20_000n);
  for (let i = 0; i < transfers; i++) {
    const from = holders[i % 2]!;
    tokenTransfer(ledger, plain, from, holders[(i + 1) % 2]!, BigInt(ledger.rng.between(1, 500)));
  }
}

function nftTransfer(ledger: ScenarioLedger, token: bigint, payer: bigint, move: NftMove): void {
  const ts = ledger.nextTimestamp();
  const moves = { token, nfts: [move] };
  ledger.submit(ts, {
    payer,
    memo: '',
    type: TransactionType.CRYPTOTRANSFER,
    data: Buffer.concat([message(1), tokenTransferList(2, moves)]),
    tokenTransfers: [moves],
    entityId: null,
    // the new owner; an approval does not survive a transfer
    apply: () => ledger.setNft(token, move.serial, ts, { account_id: move.receiver, spender: null, delegating_spender: null }),
  });
}

function approveNft(ledger: ScenarioLedger, token: bigint, owner: bigint, spender: bigint, serial: bigint): void {
  const ts = ledger.nextTimestamp();
  ledger.submit(ts, {
    payer: owner,
    memo: '',
    type: TransactionType.CRYPTOAPPROVEALLOWANCE,
    data: message(2, entityRef(1, token), entityRef(2, owner), entityRef(3, spender), int(4, serial)),
    entityId: null,
    apply: () => ledger.setNft(token, serial, ts, { spender, delegating_spender: null }),
  });
}

/** A non-fungible token: minted, moved, approved, moved by its spender, burned. */
export function nftsSection(ledger: ScenarioLedger, serials: number): void {
  const treasury = createAccount(ledger, { memo: 'nft treasury', initialBalance: 2_000_000_000n });
  const [a, b] = [createAccount(ledger, { initialBalance: 500_000_000n }), createAccount(ledger, { initialBalance: 500_000_000n })];
  const token = createToken(ledger, {
    name: 'Scenario Art',
    symbol: 'SART',
    treasury,
    nft: true,
    maxSupply: BigInt(Math.max(1_000, serials)),
    memo: 'nft class',
  });
  associate(ledger, a, [token]);
  associate(ledger, b, [token]);
  const count = Math.max(4, serials);
  const metadata = Array.from({ length: count }, (_, i) => Buffer.from(`ipfs://scenario/${i + 1}`));
  const mintTs = ledger.nextTimestamp();
  const minted = metadata.map((_, i) => BigInt(i + 1));
  ledger.submit(mintTs, {
    payer: treasury,
    memo: '',
    type: TransactionType.TOKENMINT,
    data: Buffer.concat([entityRef(1, token), ...metadata.map((m) => bytes(3, m))]),
    receipt: [int(11, BigInt(count)), ...minted.map((s) => int(14, s))],
    tokenTransfers: [{ token, nfts: minted.map((serial) => ({ sender: null, receiver: treasury, serial })) }],
    entityId: token,
    apply: () => {
      ledger.token(token).total_supply = BigInt(count);
      for (const [i, serial] of minted.entries()) {
        ledger.setNft(token, serial, mintTs, {
          account_id: treasury,
          created_timestamp: mintTs,
          delegating_spender: null,
          deleted: false,
          metadata: metadata[i]!,
          spender: null,
        });
      }
    },
  });
  nftTransfer(ledger, token, treasury, { sender: treasury, receiver: a, serial: 1n });
  nftTransfer(ledger, token, treasury, { sender: treasury, receiver: b, serial: 2n });
  nftTransfer(ledger, token, treasury, { sender: treasury, receiver: a, serial: 3n });
  approveNft(ledger, token, a, b, 1n);
  nftTransfer(ledger, token, b, { sender: a, receiver: b, serial: 1n, isApproval: true });
  approveNft(ledger, token, a, b, 3n);
  // burn the last serial, still the treasury's
  const burnTs = ledger.nextTimestamp();
  const burned = BigInt(count);
  ledger.submit(burnTs, {
    payer: treasury,
    memo: '',
    type: TransactionType.TOKENBURN,
    data: Buffer.concat([entityRef(1, token), int(3, burned)]),
    receipt: [int(11, BigInt(count - 1))],
    tokenTransfers: [{ token, nfts: [{ sender: treasury, receiver: null, serial: burned }] }],
    entityId: token,
    apply: () => {
      ledger.token(token).total_supply = BigInt(count - 1);
      ledger.setNft(token, burned, burnTs, { account_id: null, deleted: true, spender: null, delegating_spender: null });
    },
  });
}
