/**
 * The response cache's entries: what is kept of an answer, and the shape it has in Redis.
 *
 * Redis is untrusted input: anyone who can write under the key prefix could otherwise choose what
 * the service sends. An entry read from it is served only if it has exactly the shape this module
 * writes (a version tag, the payload, the expiry, the `cache-control` value and the `link`), its
 * `cache-control` is one the routes send and its `link` a relative next-page link without control
 * characters. Only those headers are restored and `content-type` is always the JSON one, so an
 * entry cannot add `Set-Cookie`, framing headers or another media type; its expiry is capped at its
 * max-age from the moment it is read, so a far-future expiry outlives neither the max-age nor the
 * key in Redis by more than that.
 */
import { CacheControl } from './cacheControl.js';

export interface CachedResponse {
  /**
   * `content-type`, `cache-control` and `link` (when the answer has one): the only headers of an
   * answer the cache restores (the other onSend hooks set theirs again on a cached answer)
   */
  headers: Readonly<Record<string, string>>;
  /**
   * The payload's UTF-8 bytes: outside the JS heap and exactly sized. Kept as the serialiser's
   * string, 64 MiB of answers grew the process by about 200 MB under the soak.
   */
  payload: Buffer;
  /** wall-clock ms after which the entry is not served */
  expiresAt: number;
}

export const CONTENT_TYPE = 'application/json; charset=utf-8';
const VERSION = 1;
const CACHE_CONTROLS: ReadonlySet<string> = new Set(Object.values(CacheControl));
/** `<relative URL>; rel="next"`, visible ASCII only (no CR, LF or other control characters) */
const LINK = /^<\/api\/v1\/[\x21-\x3b\x3d\x3f-\x7e]*>; rel="next"$/;
const MAX_AGE = /(?:^|,)\s*max-age=(\d+)/i;

/** The max-age of a `cache-control` value in seconds, or null (no-store, private or none). */
export function maxAgeOf(cacheControl: unknown): number | null {
  if (typeof cacheControl !== 'string' || /no-store|no-cache|private/i.test(cacheControl)) return null;
  const m = MAX_AGE.exec(cacheControl);
  return m ? Number(m[1]) : null;
}

/** header objects of answers without a link, one per `cache-control` value, shared by their entries */
const SHARED_HEADERS = new Map<string, Readonly<Record<string, string>>>();

/** The headers an entry restores: the allow-list, with `content-type` fixed. */
export function cachedHeaders(cacheControl: string, link: string | undefined): Readonly<Record<string, string>> {
  if (link !== undefined) return { 'content-type': CONTENT_TYPE, 'cache-control': cacheControl, link };
  let headers = SHARED_HEADERS.get(cacheControl);
  if (!headers) {
    headers = Object.freeze({ 'content-type': CONTENT_TYPE, 'cache-control': cacheControl });
    if (CACHE_CONTROLS.has(cacheControl)) SHARED_HEADERS.set(cacheControl, headers);
  }
  return headers;
}

/** The `link` among headers an answer was sent with, if it is one the cache may restore. */
export function linkOf(headers: Readonly<Record<string, unknown>>): string | undefined {
  const link = headers.link;
  return typeof link === 'string' && LINK.test(link) ? link : undefined;
}

/** An entry as Redis holds it (JSON). */
interface SharedEntry {
  v: typeof VERSION;
  payload: string;
  expiresAt: number;
  cacheControl: string;
  link?: string;
}

const KEYS = new Set(['v', 'payload', 'expiresAt', 'cacheControl', 'link']);

export function encodeSharedEntry(payload: string, expiresAt: number, headers: Readonly<Record<string, string>>): string {
  const shared: SharedEntry = { v: VERSION, payload, expiresAt, cacheControl: headers['cache-control']! };
  if (headers.link !== undefined) shared.link = headers.link;
  return JSON.stringify(shared);
}

/**
 * The entry `text` read from Redis holds, with its expiry capped at `now` plus its max-age; null
 * for anything but the shape `encodeSharedEntry` writes, or for an expired entry (`expired`).
 */
export function decodeSharedEntry(
  text: string,
  now: number,
): { payload: string; expiresAt: number; headers: Readonly<Record<string, string>> } | 'expired' | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const e = value as Partial<SharedEntry>;
  if (!Object.keys(e).every((k) => KEYS.has(k))) return null;
  if (e.v !== VERSION || typeof e.payload !== 'string' || typeof e.expiresAt !== 'number' || !Number.isFinite(e.expiresAt)) return null;
  if (typeof e.cacheControl !== 'string' || !CACHE_CONTROLS.has(e.cacheControl)) return null;
  if (e.link !== undefined && (typeof e.link !== 'string' || !LINK.test(e.link))) return null;
  const maxAge = maxAgeOf(e.cacheControl);
  if (maxAge === null) return null;
  const expiresAt = Math.min(e.expiresAt, now + maxAge * 1000);
  if (expiresAt <= now) return 'expired';
  return { payload: e.payload, expiresAt, headers: cachedHeaders(e.cacheControl, e.link) };
}
