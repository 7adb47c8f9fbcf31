/** Byte-string renderings used across the API (hex, base64, base32). */
export type Bytes = Uint8Array;

export function toBuffer(bytes: Bytes): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function hexOf(bytes: Bytes | null | undefined): string {
  return bytes ? toBuffer(bytes).toString('hex') : '';
}

/** `0x` + lowercase hex; NULL or empty gives `0x`. */
export function toHex(bytes: Bytes | null | undefined): string {
  return '0x' + hexOf(bytes);
}

/** `0x` + hex the database rendered (`encode(column, 'hex')`) left-padded to at least `digits`; empty gives `0x`. */
export function padHex(hex: string, digits: number): string {
  return hex === '' ? '0x' : '0x' + hex.padStart(digits, '0');
}

/**
 * Hex rendering of an Ethereum quantity as the reference prints it: plain hex, then one leading
 * zero digit dropped when the text is longer than 3 characters and starts with `0x0`.
 */
export function toHexQuantity(bytes: Bytes | null | undefined): string {
  const hex = toHex(bytes);
  return hex.length > 3 && hex.startsWith('0x0') ? '0x' + hex.slice(3) : hex;
}

export function bigintToHexQuantity(value: bigint): string {
  return '0x' + value.toString(16);
}

/** Plain hex of at least one byte (`0x` for NULL or empty). */
export function toHexNonQuantity(bytes: Bytes | null | undefined): string {
  return toHex(bytes);
}

/** A 32-byte EVM word from hex the database rendered: NULL → null, empty → 64 zeros, else left-padded to 64 digits. */
export function uint256Hex(hex: string | null | undefined): string | null {
  if (hex === null || hex === undefined) return null;
  return '0x' + hex.padStart(64, '0');
}

export function toBase64(bytes: Bytes | null | undefined): string | null {
  return bytes === null || bytes === undefined ? null : toBuffer(bytes).toString('base64');
}

export function bytesToBigInt(bytes: Bytes, signed = false): bigint {
  const hex = hexOf(bytes);
  if (hex === '') return 0n;
  const unsigned = BigInt('0x' + hex);
  return signed ? BigInt.asIntN(bytes.length * 8, unsigned) : unsigned;
}

const HEX = /^[0-9a-fA-F]*$/;

/** Decodes hex (optional `0x`, odd length gets a leading zero); null when not hex. */
export function fromHex(text: string): Buffer | null {
  const body = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  if (!HEX.test(body)) return null;
  return Buffer.from(body.length % 2 ? '0' + body : body, 'hex');
}
