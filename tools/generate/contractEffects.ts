/** What a contract transaction leaves besides its result: logs and their blooms, state changes, the Ethereum transaction. */
import { bytea, byteaHex, NULL } from './copyText.js';
import { BLOOM_BYTES, type LedgerWriter } from './ledgerWriter.js';
import { contractProfile } from './profiles.js';
import { mix32 } from './random.js';
import { nsText } from './time.js';

const EVENTS = [
  'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', // Transfer
  '8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925', // Approval
  'd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822', // Swap
  '1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1', // Sync
];
export const TINYBARS_PER_GAS = 71;
const WEIBARS_PER_TINYBAR = 10_000_000_000n;
/** 710 gwei, the network's gas price in weibars */
const GAS_PRICE_WEIBARS = 'a54f4c3c00';
const PRIORITY_FEE_WEIBARS = '3b9aca00';
const ZERO_WORD_PREFIX = '0'.repeat(48);

function bloomOf(hexValues: string[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const value of hexValues) {
    const h = mix32(parseInt(value.slice(-8), 16), parseInt(value.slice(0, 8), 16), value.length);
    for (const bit of [h & 2047, (h >>> 11) & 2047, mix32(h) & 2047]) bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
  }
  return bloom;
}

export function contractLogs(tx: LedgerWriter, contract: number, payer: number, involved: number[]): { bloom: Uint8Array | null } {
  const { w, rng, out } = tx;
  const u = rng.float();
  const count = u < 0.3 ? 0 : u < 0.6 ? 1 : u < 0.8 ? 2 : 3 + rng.int(2);
  if (count === 0) return { bloom: null };
  const tsText = nsText(tx.off);
  const resultBloom = new Uint8Array(BLOOM_BYTES);
  for (let i = 0; i < count; i++) {
    const logContract = rng.chance(0.3) && w.existingContracts > 1 ? w.pickContract(rng) : contract;
    if (!involved.includes(logContract)) involved.push(logContract);
    const event = rng.pick(EVENTS);
    const addressed = event === EVENTS[0] || event === EVENTS[1];
    const topics = [event, ...(addressed ? [addressWord(w.pickAccount(rng)), addressWord(w.pickAccount(rng))] : [])];
    const address = contractProfile(w.seed, logContract).evmAddress?.toString('hex') ?? logContract.toString(16).padStart(40, '0');
    const bloom = bloomOf([address, ...topics]);
    for (let k = 0; k < BLOOM_BYTES; k++) resultBloom[k]! |= bloom[k]!;
    out.contractLog.add(
      tsText,
      String(i),
      w.idText(logContract),
      w.idText(contract),
      w.idText(payer),
      bytea(bloom),
      bytea(rng.bytes(32 * (1 + rng.int(2)))),
      byteaHex(topics[0]!),
      topics[1] ? byteaHex(topics[1]) : NULL,
      topics[2] ? byteaHex(topics[2]) : NULL,
      NULL,
      NULL,
      String(tx.index),
      'f',
    );
  }
  for (let k = 0; k < BLOOM_BYTES; k++) tx.blockBloom[k]! |= resultBloom[k]!;
  tx.blockHasBloom = true;
  return { bloom: resultBloom };
}

function addressWord(num: number): string {
  return ZERO_WORD_PREFIX + num.toString(16).padStart(16, '0');
}

export function stateChanges(tx: LedgerWriter, contract: number, payer: number, involved: number[], success: boolean): void {
  const { w, rng, out } = tx;
  const count = success ? rng.int(5) : rng.int(3);
  const tsText = nsText(tx.off);
  const used = new Set<string>();
  for (let i = 0; i < count; i++) {
    const target = involved.length > 2 && rng.chance(0.2) ? involved[2 + rng.int(involved.length - 2)]! : contract;
    const slot = rng.chance(0.4) ? rng.int(16).toString(16).padStart(2, '0') : rng.bytes(32).toString('hex');
    if (used.has(`${target}:${slot}`)) continue;
    used.add(`${target}:${slot}`);
    out.contractStateChange.add(
      tsText,
      w.idText(target),
      byteaHex(slot),
      bytea(rng.bytes(32)),
      success && rng.chance(0.8) ? bytea(rng.bytes(32)) : NULL,
      w.idText(payer),
      'f',
    );
  }
}

export function ethereumTransaction(
  tx: LedgerWriter,
  payer: number,
  sender: number,
  contract: number,
  create: boolean,
  hash: string,
  gasLimit: number,
  amount: number,
  callData: Buffer | null,
  callDataFile: number,
): void {
  const { w, rng } = tx;
  const u = rng.float();
  const type = u < 0.75 ? 2 : u < 0.95 ? 0 : 1;
  const evm = contractProfile(w.seed, contract).evmAddress;
  const to = create ? NULL : evm ? bytea(evm) : byteaHex(contract.toString(16).padStart(40, '0'));
  const value = amount > 0 ? (BigInt(amount) * WEIBARS_PER_TINYBAR).toString(16) : '';
  const recovery = rng.int(2);
  const data = Buffer.concat([Buffer.from([type === 0 ? 0xf8 : type]), rng.bytes(96), callData ?? Buffer.alloc(0)]);
  tx.out.ethereumTransaction.add(
    nsText(tx.off),
    w.idText(payer),
    byteaHex(hash),
    String(type),
    String(w.ethNonce[sender]!++),
    bytea(tx.chainId),
    String(gasLimit),
    type === 2 ? NULL : byteaHex(GAS_PRICE_WEIBARS),
    type === 2 ? byteaHex(GAS_PRICE_WEIBARS) : NULL,
    type === 2 ? byteaHex(PRIORITY_FEE_WEIBARS) : NULL,
    String(gasLimit * TINYBARS_PER_GAS),
    byteaHex(value.length % 2 ? '0' + value : value),
    callData ? bytea(callData) : NULL,
    callDataFile ? w.idText(callDataFile) : NULL,
    bytea(data),
    bytea(rng.bytes(32)),
    bytea(rng.bytes(32)),
    type === 0 ? byteaHex(recovery ? '1c' : '1b') : NULL,
    String(recovery),
    to,
    NULL,
    NULL,
  );
}
