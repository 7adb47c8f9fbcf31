/** RFC 4648 base32 (alphabet A–Z 2–7), upper case, without padding: the rendering of account aliases. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const LOOKUP = new Map([...ALPHABET].map((c, i) => [c, i]));

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Loose RFC 4648 decoding as the reference applies it: lower case is accepted, `0`→`O`, `1`→`L`,
 * `8`→`B`, trailing `=` ignored. Returns null for a character outside the alphabet, a dangling
 * group of 5+ bits, or non-zero leftover bits.
 */
export function base32Decode(text: string): Buffer | null {
  const normalized = text.replace(/=+$/, '').toUpperCase().replace(/0/g, 'O').replace(/1/g, 'L').replace(/8/g, 'B');
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of normalized) {
    const v = LOOKUP.get(c);
    if (v === undefined) return null;
    buffer = ((buffer << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) return null;
  return Buffer.from(out);
}
