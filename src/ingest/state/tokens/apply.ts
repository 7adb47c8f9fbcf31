/**
 * The token effects of one transaction on the rows in memory, in the importer's order: the
 * transaction's own change (token create/update/pause, associations, freeze and KYC, mint, burn,
 * wipe, NFT metadata, NFT approvals), its automatic associations, then its transfer lists (fungible
 * balances, NFT owners and the owners' NFT counts, an NFT treasury change). The rules follow the
 * importer's transaction handlers and the merge of its entity listener:
 * - token: create, update, pause and unpause are versions; a new total supply (from the receipt's
 *   new_total_supply) and a deleted token's dissociation rewrite the current row in place.
 * - token_account: associations, dissociations, freeze and KYC changes are versions; balances change
 *   in place, only on an existing row. An association's freeze and KYC status follow the token's
 *   keys and freeze default; a token's creation associates its treasury (or the record's automatic
 *   associations) unfrozen and KYC-granted where the token has those keys.
 *   A claimed airdrop associates its receiver (the pending airdrops themselves, `token_airdrop`, are
 *   not kept); its transfer list moves the tokens.
 * - nft: every change is a version. A transfer clears the spender and delegating spender, a burn or
 *   wipe also the owner (a burned NFT is no one's); a metadata update keeps them.
 */
import type { TokenTransaction } from './decode.js';
import { FREEZE, KYC, type NftRow, nftKey, type TokenAccountRow, type TokenRow, tokenAccountKey, tokenKey } from './rows.js';
import { WILDCARD_SERIAL } from './touched.js';
import { VersionedRows } from './versioned.js';

type Row<R> = Omit<R, 'timestamp_range'>;

export class TokenState {
  readonly tokens = new VersionedRows<TokenRow>();
  readonly tokenAccounts = new VersionedRows<TokenAccountRow>();
  readonly nfts = new VersionedRows<NftRow>();

  constructor(
    /** the file's HAPI version is 0.49 or later (token metadata is read from then on, as the importer does) */
    private readonly tokenMetadata: boolean,
  ) {}

  apply(t: TokenTransaction): void {
    this.applyOp(t);
    this.autoAssociate(t);
    this.applyFungible(t);
    this.applyNftTransfers(t);
  }

  private token(id: bigint): TokenRow | undefined {
    return this.tokens.get(tokenKey(id));
  }

  /** the freeze and KYC status an association starts with (the importer's upsert computes them from the token) */
  private defaultStatus(tokenId: bigint): { freeze: number; kyc: number } {
    const token = this.token(tokenId);
    const freeze = !token?.freeze_key ? FREEZE.NOT_APPLICABLE : token.freeze_default ? FREEZE.FROZEN : FREEZE.UNFROZEN;
    const kyc = !token?.kyc_key ? KYC.NOT_APPLICABLE : KYC.REVOKED;
    return { freeze, kyc };
  }

  private associate(accountId: bigint, tokenId: bigint, ts: bigint, automatic: boolean, status: { freeze: number; kyc: number }) {
    this.tokenAccounts.version(tokenAccountKey(accountId, tokenId), ts, () => ({
      account_id: accountId,
      token_id: tokenId,
      associated: true,
      automatic_association: automatic,
      balance: 0n,
      balance_timestamp: ts,
      created_timestamp: ts,
      freeze_status: status.freeze,
      kyc_status: status.kyc,
    }));
  }

  /** a partial token_account change with history; a key never associated gets a row with what is known */
  private changeTokenAccount(accountId: bigint, tokenId: bigint, ts: bigint, change: Partial<TokenAccountRow>) {
    this.tokenAccounts.version(tokenAccountKey(accountId, tokenId), ts, (current) => ({
      account_id: accountId,
      token_id: tokenId,
      associated: current?.associated ?? false,
      automatic_association: current?.automatic_association ?? false,
      balance: current?.balance ?? 0n,
      balance_timestamp: current?.balance_timestamp ?? null,
      created_timestamp: current?.created_timestamp ?? null,
      freeze_status: current?.freeze_status ?? null,
      kyc_status: current?.kyc_status ?? null,
      ...change,
    }));
  }

  private changeToken(tokenId: bigint, ts: bigint, change: Partial<TokenRow>) {
    this.tokens.version(tokenKey(tokenId), ts, (current) => (current ? { ...stripRange(current), ...change } : null));
  }

  private setTotalSupply(tokenId: bigint, supply: bigint | null) {
    if (supply !== null) this.tokens.update(tokenKey(tokenId), (row) => (row.total_supply = supply));
  }

  private changeNft(tokenId: bigint, serial: bigint, ts: bigint, change: Partial<NftRow>) {
    this.nfts.version(nftKey(tokenId, serial), ts, (current) => ({
      token_id: tokenId,
      serial_number: serial,
      account_id: current?.account_id ?? null,
      created_timestamp: current?.created_timestamp ?? null,
      deleted: current?.deleted ?? false,
      delegating_spender: current?.delegating_spender ?? null,
      metadata: current?.metadata ?? null,
      spender: current?.spender ?? null,
      ...change,
    }));
  }

  private applyOp(t: TokenTransaction): void {
    const ts = t.consensusTimestamp;
    const { op } = t;
    switch (op.kind) {
      case 'create': {
        const b = op.body;
        const row: Row<TokenRow> = {
          token_id: op.token,
          created_timestamp: ts,
          decimals: b.decimals,
          fee_schedule_key: b.feeScheduleKey,
          freeze_default: b.freezeDefault,
          freeze_key: b.freezeKey,
          freeze_status: b.freezeKey ? (b.freezeDefault ? FREEZE.FROZEN : FREEZE.UNFROZEN) : FREEZE.NOT_APPLICABLE,
          initial_supply: b.initialSupply,
          kyc_key: b.kycKey,
          kyc_status: b.kycKey ? KYC.REVOKED : KYC.NOT_APPLICABLE,
          max_supply: b.maxSupply,
          metadata: this.tokenMetadata ? b.metadata : null,
          metadata_key: this.tokenMetadata ? b.metadataKey : null,
          name: b.name,
          pause_key: b.pauseKey,
          pause_status: b.pauseKey ? 'UNPAUSED' : 'NOT_APPLICABLE',
          supply_key: b.supplyKey,
          supply_type: b.supplyType === 1 ? 'FINITE' : 'INFINITE',
          symbol: b.symbol,
          total_supply: b.initialSupply,
          treasury_account_id: b.treasury ?? 0n,
          type: b.tokenType === 1 ? 'NON_FUNGIBLE_UNIQUE' : 'FUNGIBLE_COMMON',
          wipe_key: b.wipeKey,
        };
        this.tokens.version(tokenKey(op.token), ts, () => row);
        // the record's automatic associations (services 0.18 on) replace the treasury (and fee collectors)
        const associated = t.record.automaticAssociations.length
          ? t.record.automaticAssociations.map((a) => a.accountId)
          : b.treasury !== null
            ? [b.treasury]
            : [];
        const status = {
          freeze: b.freezeKey ? FREEZE.UNFROZEN : FREEZE.NOT_APPLICABLE,
          kyc: b.kycKey ? KYC.GRANTED : KYC.NOT_APPLICABLE,
        };
        for (const account of associated) this.associate(account, op.token, ts, false, status);
        break;
      }
      case 'update': {
        const b = op.body;
        const change: Partial<TokenRow> = {};
        if (b.name !== '') change.name = b.name;
        if (b.symbol !== '') change.symbol = b.symbol;
        if (b.treasury !== null) change.treasury_account_id = b.treasury;
        if (b.kycKey) change.kyc_key = b.kycKey;
        if (b.freezeKey) change.freeze_key = b.freezeKey;
        if (b.wipeKey) change.wipe_key = b.wipeKey;
        if (b.supplyKey) change.supply_key = b.supplyKey;
        if (b.feeScheduleKey) change.fee_schedule_key = b.feeScheduleKey;
        if (b.pauseKey) change.pause_key = b.pauseKey;
        if (b.metadata) change.metadata = b.metadata;
        if (b.metadataKey) change.metadata_key = b.metadataKey;
        this.changeToken(op.token, ts, change);
        break;
      }
      case 'pause':
      case 'unpause':
        this.changeToken(op.token, ts, { pause_status: op.kind === 'pause' ? 'PAUSED' : 'UNPAUSED' });
        break;
      case 'associate':
        for (const token of op.tokens) this.associate(op.account, token, ts, false, this.defaultStatus(token));
        break;
      case 'dissociate':
        for (const token of op.tokens) this.changeTokenAccount(op.account, token, ts, { associated: false });
        break;
      case 'freeze':
      case 'unfreeze':
        this.changeTokenAccount(op.account, op.token, ts, { freeze_status: op.kind === 'freeze' ? FREEZE.FROZEN : FREEZE.UNFROZEN });
        break;
      case 'grantKyc':
      case 'revokeKyc':
        this.changeTokenAccount(op.account, op.token, ts, { kyc_status: op.kind === 'grantKyc' ? KYC.GRANTED : KYC.REVOKED });
        break;
      case 'mint':
        this.setTotalSupply(op.token, t.record.newTotalSupply);
        for (const [i, serial] of t.record.serialNumbers.entries()) {
          this.nfts.version(nftKey(op.token, serial), ts, () => ({
            token_id: op.token,
            serial_number: serial,
            account_id: null,
            created_timestamp: ts,
            deleted: false,
            delegating_spender: null,
            metadata: op.metadata[i] ?? Buffer.alloc(0),
            spender: null,
          }));
        }
        break;
      case 'burn':
      case 'wipe':
        this.setTotalSupply(op.token, t.record.newTotalSupply);
        for (const serial of op.serials)
          this.changeNft(op.token, serial, ts, { account_id: null, deleted: true, spender: null, delegating_spender: null });
        break;
      case 'updateNfts':
        for (const serial of op.serials) this.changeNft(op.token, serial, ts, { metadata: op.metadata });
        break;
      case 'approve':
        for (const a of op.approvals) {
          if (a.token === null || a.spender === null) continue;
          const owner = a.owner ?? t.payer;
          for (const serial of a.serials)
            this.changeNft(a.token, serial, ts, { account_id: owner, spender: a.spender, delegating_spender: a.delegatingSpender });
        }
        break;
      case 'deleteAllowance':
        for (const r of op.removals) {
          if (r.token === null) continue;
          for (const serial of r.serials) this.changeNft(r.token, serial, ts, { spender: null, delegating_spender: null });
        }
        break;
      case 'claimAirdrop':
        // a claim associates the receiver with the token, unless it already is
        for (const [receiver, token] of op.claims)
          if (this.tokenAccounts.get(tokenAccountKey(receiver, token))?.associated !== true)
            this.associate(receiver, token, ts, false, this.defaultStatus(token));
        break;
      case 'none':
        break;
    }
  }

  /** Associations the network made itself (a transfer to an account with free automatic association slots). */
  private autoAssociate(t: TokenTransaction): void {
    if (t.op.kind === 'create') return;
    for (const a of t.record.automaticAssociations)
      this.associate(a.accountId, a.tokenId, t.consensusTimestamp, true, this.defaultStatus(a.tokenId));
  }

  private addBalance(accountId: bigint, tokenId: bigint, amount: bigint, ts: bigint): void {
    this.tokenAccounts.update(tokenAccountKey(accountId, tokenId), (row) => {
      row.balance += amount;
      row.balance_timestamp = ts;
    });
  }

  private applyFungible(t: TokenTransaction): void {
    const ts = t.consensusTimestamp;
    for (const list of t.fungible) {
      // a dissociation from a deleted token burns the account's balance: one transfer, taken off the supply
      if (t.op.kind === 'dissociate' && list.transfers.length === 1)
        this.tokens.update(tokenKey(list.tokenId), (row) => (row.total_supply += list.transfers[0]!.amount));
      for (const a of list.transfers) this.addBalance(a.accountId, list.tokenId, a.amount, ts);
    }
  }

  private applyNftTransfers(t: TokenTransaction): void {
    const ts = t.consensusTimestamp;
    for (const n of t.nftTransfers) {
      if (n.serial === WILDCARD_SERIAL) {
        if (n.sender !== null && n.receiver !== null) this.moveTreasury(n.tokenId, n.sender, n.receiver, ts);
        continue;
      }
      if (n.receiver !== null) this.changeNft(n.tokenId, n.serial, ts, { account_id: n.receiver, spender: null, delegating_spender: null });
      if (n.sender !== null) this.addBalance(n.sender, n.tokenId, -1n, ts);
      if (n.receiver !== null) this.addBalance(n.receiver, n.tokenId, 1n, ts);
    }
  }

  /** A token's treasury change moves every NFT the old treasury holds to the new one, allowances cleared (the importer's nft update by owner). */
  private moveTreasury(tokenId: bigint, from: bigint, to: bigint, ts: bigint): void {
    const moved: bigint[] = [];
    for (const [, row] of this.nfts.entries()) if (row.token_id === tokenId && row.account_id === from) moved.push(row.serial_number);
    for (const serial of moved) this.changeNft(tokenId, serial, ts, { account_id: to, spender: null, delegating_spender: null });
    this.tokenAccounts.update(tokenAccountKey(from, tokenId), (row) => {
      row.balance = 0n;
      row.balance_timestamp = ts;
    });
    this.addBalance(to, tokenId, BigInt(moved.length), ts);
  }
}

function stripRange<R extends { timestamp_range: unknown }>(row: R): Omit<R, 'timestamp_range'> {
  const { timestamp_range: _, ...rest } = row;
  return rest;
}
