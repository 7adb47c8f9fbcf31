/**
 * Token and NFT transactions as a record stream carries them, for the ingester's token applier:
 * TokenCreate, TokenAssociate, TokenMint, CryptoTransfer of tokens and NFTs, CryptoApproveAllowance
 * of NFTs, TokenBurn, TokenFreeze/Unfreeze, TokenGrantKyc, TokenDissociate, TokenUpdate and
 * TokenClaimAirdrop, each a
 * `Transaction` (signedTransactionBytes) and its `TransactionRecord` with what the network records:
 * the receipt's token id, new total supply and serial numbers, the token transfer lists with their
 * NFT transfers, automatic token associations. The caller scripts the ledger (which ids, which
 * amounts); each call takes the next consensus timestamp.
 */
import { createHash } from 'node:crypto';
import { bytes, int, message, sint, string } from './protoWriter.js';

const SUCCESS = 22;
const FEE_COLLECTOR = 98n;
const FEE = 100_000n;

export interface ScriptedItem {
  consensusTimestamp: bigint;
  transaction: Buffer;
  record: Buffer;
}

function timestamp(field: number, nanos: bigint): Buffer {
  const seconds = nanos / 1_000_000_000n;
  const rest = nanos % 1_000_000_000n;
  return message(field, int(1, seconds), ...(rest === 0n ? [] : [int(2, rest)]));
}

/** AccountID / TokenID {shard 1, realm 2, num 3} in shard 0 realm 0 */
const id = (field: number, num: bigint) => message(field, int(3, num));

/** a packed repeated int64 */
function packed(field: number, values: bigint[]): Buffer {
  return bytes(field, Buffer.concat(values.map((v) => int(1, v).subarray(1))));
}

/** an ED25519 Key {ed25519 2} derived from a name, so that each key is distinct and stable */
export function keyOf(name: string): Buffer {
  return bytes(2, createHash('sha256').update(name).digest());
}

export interface FungibleTransfer {
  token: bigint;
  transfers: [account: bigint, amount: bigint][];
}

export interface NftMove {
  token: bigint;
  /** null: minted (no sender) or burned (no receiver) */
  sender: bigint | null;
  receiver: bigint | null;
  serial: bigint;
}

interface Outcome {
  receipt?: Buffer[];
  fungible?: FungibleTransfer[];
  nfts?: NftMove[];
  /** [token, account] */
  automaticAssociations?: [bigint, bigint][];
  status?: number;
}

export interface TokenCreateOptions {
  token: bigint;
  treasury: bigint;
  name: string;
  symbol: string;
  nonFungible?: boolean;
  decimals?: bigint;
  initialSupply?: bigint;
  freezeKey?: boolean;
  freezeDefault?: boolean;
  kycKey?: boolean;
  pauseKey?: boolean;
  maxSupply?: bigint;
}

export class TokenScript {
  readonly items: ScriptedItem[] = [];
  private next: bigint;

  constructor(
    start: bigint,
    private readonly node: bigint,
    /** nanoseconds between consecutive transactions */
    private readonly step = 1_000_000n,
  ) {
    this.next = start;
  }

  private add(payer: bigint, type: number, data: Buffer, outcome: Outcome = {}): ScriptedItem {
    const ts = this.next;
    this.next += this.step;
    const validStart = ts - 2_000_000_000n;
    const transactionId = (field: number) => message(field, timestamp(1, validStart), id(2, payer));
    const body = Buffer.concat([transactionId(1), id(2, this.node), int(3, FEE * 2n), message(4, int(1, 120)), bytes(type, data)]);
    const signedTransactionBytes = Buffer.concat([
      bytes(1, body),
      message(2, message(1, bytes(1, Buffer.alloc(3, 1)), bytes(3, Buffer.alloc(64, 2)))),
    ]);
    const transaction = bytes(5, signedTransactionBytes);
    const tokenLists = new Map<bigint, Buffer[]>();
    for (const list of outcome.fungible ?? [])
      tokenLists.set(
        list.token,
        list.transfers.map(([account, amount]) => message(2, id(1, account), sint(2, amount))),
      );
    for (const n of outcome.nfts ?? []) {
      const parts = tokenLists.get(n.token) ?? [];
      parts.push(
        message(3, ...(n.sender === null ? [] : [id(1, n.sender)]), ...(n.receiver === null ? [] : [id(2, n.receiver)]), int(3, n.serial)),
      );
      tokenLists.set(n.token, parts);
    }
    const record = Buffer.concat([
      message(1, int(1, outcome.status ?? SUCCESS), ...(outcome.receipt ?? [])),
      bytes(2, createHash('sha384').update(signedTransactionBytes).digest()),
      timestamp(3, ts),
      transactionId(4),
      int(6, FEE),
      message(
        10,
        message(1, id(1, this.node), sint(2, FEE / 10n)),
        message(1, id(1, FEE_COLLECTOR), sint(2, FEE - FEE / 10n)),
        message(1, id(1, payer), sint(2, -FEE)),
      ),
      ...[...tokenLists].map(([token, parts]) => message(11, id(1, token), ...parts)),
      ...(outcome.automaticAssociations ?? []).map(([token, account]) => message(14, id(1, token), id(2, account))),
    ]);
    const item = { consensusTimestamp: ts, transaction, record };
    this.items.push(item);
    return item;
  }

  /** TokenCreate (29); a fungible initial supply goes to the treasury. */
  tokenCreate(payer: bigint, o: TokenCreateOptions): ScriptedItem {
    const supply = o.nonFungible ? 0n : (o.initialSupply ?? 0n);
    const data = Buffer.concat([
      string(1, o.name),
      string(2, o.symbol),
      ...(o.decimals ? [int(3, o.decimals)] : []),
      ...(supply ? [int(4, supply)] : []),
      id(5, o.treasury),
      bytes(6, keyOf(`${o.symbol} admin`)),
      ...(o.kycKey ? [bytes(7, keyOf(`${o.symbol} kyc`))] : []),
      ...(o.freezeKey ? [bytes(8, keyOf(`${o.symbol} freeze`))] : []),
      bytes(10, keyOf(`${o.symbol} supply`)),
      ...(o.freezeDefault ? [int(11, true)] : []),
      ...(o.nonFungible ? [int(17, 1)] : []),
      ...(o.maxSupply ? [int(18, 1), int(19, o.maxSupply)] : []),
      ...(o.pauseKey ? [bytes(22, keyOf(`${o.symbol} pause`))] : []),
    ]);
    return this.add(payer, 29, data, {
      receipt: [id(10, o.token)],
      fungible: supply ? [{ token: o.token, transfers: [[o.treasury, supply]] }] : [],
      automaticAssociations: [[o.token, o.treasury]],
    });
  }

  /** TokenAssociate (40); `status` other than SUCCESS (22) for one the network refused */
  associate(account: bigint, tokens: bigint[], status = SUCCESS): ScriptedItem {
    return this.add(account, 40, Buffer.concat([id(1, account), ...tokens.map((t) => id(2, t))]), { status });
  }

  /** TokenDissociate (41) */
  dissociate(account: bigint, tokens: bigint[]): ScriptedItem {
    return this.add(account, 41, Buffer.concat([id(1, account), ...tokens.map((t) => id(2, t))]));
  }

  /** TokenFreezeAccount (31), TokenUnfreezeAccount (32), TokenGrantKyc (33), TokenRevokeKyc (34) */
  accountStatus(payer: bigint, type: 31 | 32 | 33 | 34, token: bigint, account: bigint): ScriptedItem {
    return this.add(payer, type, Buffer.concat([id(1, token), id(2, account)]));
  }

  /** TokenMint (37) of NFTs: the serials the network gave them, each to the treasury */
  mintNfts(payer: bigint, token: bigint, treasury: bigint, metadata: Buffer[], firstSerial: bigint, newTotalSupply: bigint): ScriptedItem {
    const serials = metadata.map((_, i) => firstSerial + BigInt(i));
    return this.add(payer, 37, Buffer.concat([id(1, token), ...metadata.map((m) => bytes(3, m))]), {
      receipt: [int(11, newTotalSupply), packed(14, serials)],
      nfts: serials.map((serial) => ({ token, sender: null, receiver: treasury, serial })),
    });
  }

  /** TokenMint (37) of a fungible amount, to the treasury */
  mintFungible(payer: bigint, token: bigint, treasury: bigint, amount: bigint, newTotalSupply: bigint): ScriptedItem {
    return this.add(payer, 37, Buffer.concat([id(1, token), int(2, amount)]), {
      receipt: [int(11, newTotalSupply)],
      fungible: [{ token, transfers: [[treasury, amount]] }],
    });
  }

  /** TokenBurn (38) of NFTs held by the treasury */
  burnNfts(payer: bigint, token: bigint, treasury: bigint, serials: bigint[], newTotalSupply: bigint): ScriptedItem {
    return this.add(payer, 38, Buffer.concat([id(1, token), packed(3, serials)]), {
      receipt: [int(11, newTotalSupply)],
      nfts: serials.map((serial) => ({ token, sender: treasury, receiver: null, serial })),
    });
  }

  /** CryptoTransfer (14) of tokens and NFTs; `automaticAssociations` as [token, account] */
  transfer(payer: bigint, fungible: FungibleTransfer[], nfts: NftMove[], automaticAssociations: [bigint, bigint][] = []): ScriptedItem {
    const lists = [...fungible.map((f) => f.token), ...nfts.map((n) => n.token)].filter((t, i, all) => all.indexOf(t) === i);
    const data = Buffer.concat(
      lists.map((token) =>
        message(
          2,
          id(1, token),
          ...fungible
            .filter((f) => f.token === token)
            .flatMap((f) => f.transfers.map(([a, amount]) => message(2, id(1, a), sint(2, amount)))),
          ...nfts.filter((n) => n.token === token).map((n) => message(3, id(1, n.sender ?? 0n), id(2, n.receiver ?? 0n), int(3, n.serial))),
        ),
      ),
    );
    return this.add(payer, 14, data, { fungible, nfts, automaticAssociations });
  }

  /** CryptoApproveAllowance (48) of NFT serials: NftAllowance {tokenId 1, owner 2, spender 3, serial_numbers 4} */
  approveNfts(owner: bigint, token: bigint, spender: bigint, serials: bigint[], delegatingSpender?: bigint): ScriptedItem {
    const allowance = message(
      2,
      id(1, token),
      id(2, owner),
      id(3, spender),
      packed(4, serials),
      ...(delegatingSpender === undefined ? [] : [id(6, delegatingSpender)]),
    );
    return this.add(owner, 48, allowance);
  }

  /** CryptoDeleteAllowance (49) of NFT serials: NftRemoveAllowance {token_id 1, owner 2, serial_numbers 3} */
  deleteNftAllowances(owner: bigint, token: bigint, serials: bigint[]): ScriptedItem {
    return this.add(owner, 49, message(2, id(1, token), id(2, owner), packed(3, serials)));
  }

  /** TokenClaimAirdrop (60) of a fungible airdrop: PendingAirdropId {sender_id 1, receiver_id 2, fungible_token_type 3}; the record moves the amount */
  claimAirdrop(receiver: bigint, sender: bigint, token: bigint, amount: bigint): ScriptedItem {
    return this.add(receiver, 60, message(1, id(1, sender), id(2, receiver), id(3, token)), {
      fungible: [
        {
          token,
          transfers: [
            [sender, -amount],
            [receiver, amount],
          ],
        },
      ],
    });
  }

  /** TokenUpdate (36) of the name and treasury; an NFT's treasury change carries a transfer of serial -1 */
  updateToken(payer: bigint, token: bigint, change: { name?: string; treasury?: bigint }, treasuryMove?: NftMove): ScriptedItem {
    const data = Buffer.concat([
      id(1, token),
      ...(change.name ? [string(3, change.name)] : []),
      ...(change.treasury ? [id(4, change.treasury)] : []),
    ]);
    return this.add(payer, 36, data, { nfts: treasuryMove ? [treasuryMove] : [] });
  }
}
