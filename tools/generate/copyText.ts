/**
 * Values in PostgreSQL's COPY text format (tab-separated columns, `\N` for NULL, backslash escapes).
 * Rows are built as strings straight away: at tens of millions of rows, intermediate objects cost
 * more than the database does.
 */

export const NULL = '\\N';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of the bytes (no prefix). */
export function hex(bytes: Uint8Array): string {
  return bytes.length > 64 ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : smallHex(bytes);
}

function smallHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}

/** A bytea value: `\x…` in bytea's hex input syntax, its backslash escaped for COPY. */
export function bytea(bytes: Uint8Array | null): string {
  return bytes === null ? NULL : '\\\\x' + hex(bytes);
}

/** A bytea value from hex digits already at hand. */
export function byteaHex(hexDigits: string | null): string {
  return hexDigits === null ? NULL : '\\\\x' + hexDigits;
}

const SPECIAL = /[\\\t\n\r]/;

export function text(value: string | null): string {
  if (value === null) return NULL;
  if (!SPECIAL.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

export function bool(value: boolean | null): string {
  return value === null ? NULL : value ? 't' : 'f';
}

export function int(value: number | bigint | null): string {
  return value === null ? NULL : String(value);
}

/** An int8range `[lower,)` or `[lower,upper)` from decimal texts. */
export function range(lower: string, upper: string | null = null): string {
  return `[${lower},${upper ?? ''})`;
}
