/**
 * A `NodeAddressBook` protobuf (nodeAddress = 1) read into the nodes' RSA keys and stakes. NodeAddress:
 * memo 3 (the account `0.0.N` in old books), RSA_PubKey 4 (hex of a DER SubjectPublicKeyInfo),
 * nodeId 5, nodeAccountId 6, stake 10. Old books leave nodeId unset (0): the node id is then the
 * account number − 3, as the importer derives it.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { int64, readFields, WIRE_LENGTH, WIRE_VARINT } from '../../domain/protobuf.js';

export interface AddressBookNode {
  nodeId: bigint;
  /** `shard.realm.num` */
  accountId: string | null;
  publicKey: KeyObject;
  stake: bigint;
}

export interface AddressBook {
  /** by node id; a node listed several times (one entry per endpoint in old books) appears once */
  nodes: Map<bigint, AddressBookNode>;
}

interface RawNode {
  memo: string;
  rsaPubKey: string;
  nodeId: bigint;
  account: { shard: bigint; realm: bigint; num: bigint } | null;
  stake: bigint;
}

function readAccountId(bytes: Uint8Array): { shard: bigint; realm: bigint; num: bigint } {
  const id = { shard: 0n, realm: 0n, num: 0n };
  readFields(bytes, (field, wire, r) => {
    if (wire !== WIRE_VARINT || field > 3) return false;
    const v = int64(r);
    if (field === 1) id.shard = v;
    else if (field === 2) id.realm = v;
    else id.num = v;
    return true;
  });
  return id;
}

function readNodeAddress(bytes: Uint8Array): RawNode {
  const node: RawNode = { memo: '', rsaPubKey: '', nodeId: 0n, account: null, stake: 0n };
  readFields(bytes, (field, wire, r) => {
    if (field === 3 && wire === WIRE_LENGTH) node.memo = Buffer.from(r.bytes()).toString('utf8');
    else if (field === 4 && wire === WIRE_LENGTH) node.rsaPubKey = r.string();
    else if (field === 5 && wire === WIRE_VARINT) node.nodeId = int64(r);
    else if (field === 6 && wire === WIRE_LENGTH) node.account = readAccountId(r.bytes());
    else if (field === 10 && wire === WIRE_VARINT) node.stake = int64(r);
    else return false;
    return true;
  });
  return node;
}

const ACCOUNT_MEMO = /^(\d+)\.(\d+)\.(\d+)$/;

function accountOf(node: RawNode): { shard: bigint; realm: bigint; num: bigint } | null {
  if (node.account) return node.account;
  const m = ACCOUNT_MEMO.exec(node.memo.trim());
  return m ? { shard: BigInt(m[1]!), realm: BigInt(m[2]!), num: BigInt(m[3]!) } : null;
}

/** Parses a book; throws a plain Error naming the problem (`source` says which book). */
export function parseAddressBook(bytes: Uint8Array, source: string): AddressBook {
  const raw: RawNode[] = [];
  try {
    readFields(bytes, (field, wire, r) => {
      if (field !== 1 || wire !== WIRE_LENGTH) return false;
      raw.push(readNodeAddress(r.bytes()));
      return true;
    });
  } catch (e) {
    throw new Error(`address book ${source}: malformed NodeAddressBook (${(e as Error).message})`);
  }
  const nodes = new Map<bigint, AddressBookNode>();
  for (const node of raw) {
    const account = accountOf(node);
    const nodeId = node.nodeId === 0n && account && account.num > 3n ? account.num - 3n : node.nodeId;
    if (nodes.has(nodeId) || node.rsaPubKey === '') continue;
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: Buffer.from(node.rsaPubKey, 'hex'), format: 'der', type: 'spki' });
    } catch (e) {
      throw new Error(`address book ${source}: node ${nodeId} has an unreadable RSA_PubKey (${(e as Error).message})`);
    }
    const accountId = account ? `${account.shard}.${account.realm}.${account.num}` : null;
    nodes.set(nodeId, { nodeId, accountId, publicKey, stake: node.stake });
  }
  if (nodes.size === 0) throw new Error(`address book ${source}: no node with an RSA key`);
  return { nodes };
}

/** The node of an account (`0.0.N`), for the ACCOUNT_ID bucket layout. */
export function nodeOfAccount(book: AddressBook, accountId: string): AddressBookNode | undefined {
  for (const node of book.nodes.values()) if (node.accountId === accountId) return node;
  return undefined;
}
