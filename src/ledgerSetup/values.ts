/**
 * Value conventions of the setup format: integers as numbers or decimal strings, entity ids as
 * `shard.realm.num`, `realm.num` or a bare number, bytes as hex (optional 0x), base64 or byte arrays,
 * keys as plain hex, ranges as PostgreSQL range text, each converted to its column's value here.
 */
import { stringify as stringifyLossless } from 'lossless-json';
import { base32Decode } from '../domain/base32.js';
import { fromHex } from '../domain/bytes.js';
import { parseEntityIdValue, type ShardRealm } from '../domain/entityId.js';

export type SetupValue = unknown;
export type SetupRow = Record<string, SetupValue>;

export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

export function isMissing(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** An integer given as a JSON number, bigint or decimal string. */
export function int(v: unknown, what = 'value'): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  throw new SetupError(`${what}: not an integer: ${JSON.stringify(String(v))}`);
}

export function intOrNull(v: unknown, what?: string): bigint | null {
  return isMissing(v) ? null : int(v, what);
}

/** `id(x)`: null stays NULL; otherwise `shard.realm.num`, `realm.num` or a bare num, encoded. */
export function entityId(v: unknown, system: ShardRealm, what = 'id'): bigint | null {
  if (isMissing(v)) return null;
  const text = String(v);
  const id = parseEntityIdValue(text, system, false);
  if (id === null) {
    // a negative or out-of-range bare number is an already-encoded value in some fixtures
    if (/^-?\d+$/.test(text)) return BigInt.asIntN(64, BigInt(text));
    throw new SetupError(`${what}: not an entity id: ${text}`);
  }
  return id;
}

export function entityIdRequired(v: unknown, system: ShardRealm, what: string): bigint {
  const id = entityId(v, system, what);
  if (id === null) throw new SetupError(`${what} is required`);
  return id;
}

const HEX_STRING = /^(0x)?[0-9A-Fa-f]+$/;

/** `bytes(x)`: hex strings (optional 0x) are hex, other strings base64, arrays are byte values. */
export function bytes(v: unknown): Buffer | null {
  if (isMissing(v)) return null;
  if (typeof v === 'string') {
    return HEX_STRING.test(v) ? fromHex(v)! : Buffer.from(v, 'base64');
  }
  if (Array.isArray(v)) {
    if (v.length === 1 && typeof v[0] === 'string' && HEX_STRING.test(v[0])) return fromHex(v[0])!;
    return Buffer.from(v.map((n) => Number(n)));
  }
  if (v instanceof Uint8Array) return Buffer.from(v);
  throw new SetupError(`not a byte string: ${JSON.stringify(String(v))}`);
}

/** A key column: a plain hex string (no 0x), or an array of byte values. */
export function keyBytes(v: unknown): Buffer | null {
  if (isMissing(v)) return null;
  if (typeof v === 'string') {
    if (!/^[0-9A-Fa-f]*$/.test(v)) throw new SetupError(`key: not hex: ${v}`);
    return Buffer.from(v, 'hex');
  }
  return bytes(v);
}

/**
 * Text handed to a bytea column, decoded with PostgreSQL's bytea input rules: `\x…` is hex;
 * otherwise each character is one byte (UTF-8), `\\` a backslash and `\ooo` an octal byte.
 */
export function byteaText(v: unknown): Buffer | null {
  if (isMissing(v)) return null;
  const text = String(v);
  if (text.startsWith('\\x')) {
    const hex = fromHex(text.slice(2));
    if (!hex || text.length % 2 !== 0) throw new SetupError(`invalid bytea hex: ${text}`);
    return hex;
  }
  const out: number[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\\') {
      if (text[i + 1] === '\\') {
        out.push(0x5c);
        i += 2;
      } else if (/^[0-3][0-7]{2}$/.test(text.slice(i + 1, i + 4))) {
        out.push(parseInt(text.slice(i + 1, i + 4), 8));
        i += 4;
      } else {
        throw new SetupError(`invalid bytea escape in ${text}`);
      }
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      out.push(...Buffer.from(ch, 'utf8'));
      i += ch.length;
    }
  }
  return Buffer.from(out);
}

export function alias(v: unknown): Buffer | null {
  if (isMissing(v)) return null;
  const decoded = base32Decode(String(v));
  if (!decoded) throw new SetupError(`alias: not base32: ${String(v)}`);
  return decoded;
}

export function bool(v: unknown, fallback: boolean | null): boolean | null {
  if (v === undefined) return fallback;
  if (v === null) return null;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new SetupError(`not a boolean: ${String(v)}`);
}

/** JSON text for a jsonb column, integers beyond 2^53 kept exact. */
export function json(v: unknown): string | null {
  return isMissing(v) ? null : (stringifyLossless(v) ?? null);
}

/** A range column: the PostgreSQL range text as given. */
export function range(v: unknown, fallback: string): string {
  return isMissing(v) ? fallback : String(v);
}

/** A closed range (not ending in `,)`) belongs in the history table. */
export function isHistoryRange(rangeText: string): boolean {
  return !rangeText.endsWith(',)');
}
