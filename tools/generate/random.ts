/**
 * Seeded randomness for the synthetic ledger: the same seed gives the same ledger on every machine.
 * `Rng` is a sequential stream (sfc32); `keyedRng` derives an independent stream from integer keys,
 * so that the attributes of, say, account 0.0.1234 can be recomputed without generating the rest.
 */

/** A 32-bit avalanche mix of a few integers (murmur3's finaliser over a running combination). */
export function mix32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    // fold in both halves so that keys beyond 2^32 (timestamps, big nums) stay distinct
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b);
    h = Math.imul(h ^ Math.floor(v / 4294967296), 0xc2b2ae35);
    h ^= h >>> 15;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    this.a = mix32(seed, stream, 1);
    this.b = mix32(seed, stream, 2);
    this.c = mix32(seed, stream, 3);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /**
   * An index in [0, n) skewed towards 0 by a power law: P(index < k) = (k/n)^(1/skew). With skew 3
   * the first 1% of indexes draw about a fifth of all picks and the first index alone ~n^(-1/3).
   */
  powerIndex(n: number, skew: number): number {
    return Math.min(n - 1, Math.floor(n * this.float() ** skew));
  }

  /** Exponentially distributed with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** Index into `weights` drawn proportionally to the weights (`total` is their sum). */
  weighted(weights: readonly number[], total: number): number {
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** Fills `out[offset, offset + length)` with random bytes. */
  fill(out: Uint8Array, offset = 0, length = out.length - offset): Uint8Array {
    let i = offset;
    const end = offset + length;
    while (i < end) {
      let v = this.uint32();
      for (let k = 0; k < 4 && i < end; k++, i++) {
        out[i] = v & 0xff;
        v >>>= 8;
      }
    }
    return out;
  }

  bytes(length: number): Buffer {
    return this.fill(Buffer.allocUnsafe(length)) as Buffer;
  }

  /** Shuffles `items` in place (Fisher–Yates). */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

/** An independent stream for (seed, keys…): the same keys always give the same values. */
export function keyedRng(seed: number, ...keys: number[]): Rng {
  return new Rng(mix32(seed, ...keys), keys.length);
}
