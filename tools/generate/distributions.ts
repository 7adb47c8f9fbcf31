/** Random shapes the synthetic ledger's state is built from. */
import { HUB_NUMS, HUBS } from './layout.js';
import type { Rng } from './random.js';

/** How many tokens an account is associated with: most none or a few, the whale more than the 1000 shown. */
export function associationCount(rng: Rng, accountIndex: number): number {
  if (accountIndex === HUB_NUMS.indexOf(HUBS.whale)) return 1100;
  if (accountIndex < HUB_NUMS.length) return 40;
  const u = rng.float();
  if (u < 0.45) return 0;
  if (u < 0.7) return 1;
  if (u < 0.85) return 2;
  if (u < 0.95) return 3 + rng.int(3);
  if (u < 0.999) return 6 + rng.int(15);
  return 21 + rng.int(180);
}

export function permutation(rng: Rng, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/** Offsets of each collection's serials: sizes follow a power law and add up to exactly `total`. */
export function collectionSizes(rng: Rng, collections: number, total: number): Int32Array {
  const weights = Array.from({ length: collections }, (_, c) => (0.5 + rng.float()) / (c + 1) ** 1.1);
  const sum = weights.reduce((a, b) => a + b, 0);
  const start = new Int32Array(collections + 1);
  const spare = total - collections; // every collection holds at least one serial
  let cumulative = 0;
  for (let c = 0; c < collections; c++) {
    cumulative += (weights[c]! / sum) * spare;
    const upTo = c === collections - 1 ? spare : Math.floor(cumulative);
    start[c + 1] = c + 1 + upTo;
  }
  return start;
}
