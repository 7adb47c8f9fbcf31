/**
 * Which requests the response cache keeps, and under which key.
 *
 * Only a request whose URL is already in its canonical spelling is cached; any other spelling of
 * the same resource (`/blocks/0001`, `/blocks/1/`, `?&limit=1`, `0.000.5`, `%31`) is answered from
 * the database. Keying on the routes' parsed values instead would need every route's parser before
 * its handler runs, and two spellings of a list do not give the same body anyway: `links.next`
 * repeats the path and query as sent. With this rule one resource has a bounded number of entries
 * (its query orders), so no client can fill the cache with aliases of one answer.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { queryOf } from './query.js';

/** an optional filter operator, then the value */
const OPERATOR = /^(?:eq|ne|gt|gte|lt|lte):/;
/** a number (an int64 has at most 19 digits: a longer run of digits is a hash) */
const DIGITS = /^\d{1,19}$/;
const DOTTED = /^\d+(?:\.\d+){1,2}$/;
/** a hex string: its letters in lower case, the spelling the service itself prints */
const HEX = /^(?:0x)?[0-9a-fA-F]+$/;
/** nanoseconds of a timestamp, where leading zeros are part of the value */
const NANOS = /^\d{9}$/;
/** what a path segment or a query part may hold without percent-encoding, `+` or other escapes */
const PLAIN = /^[A-Za-z0-9._:-]+$/;

const noLeadingZero = (digits: string): boolean => digits === '0' || !digits.startsWith('0');

/** Whether `token` (a path segment or a query value) is written the one way the service prints it. */
export function isCanonicalToken(token: string): boolean {
  if (!PLAIN.test(token)) return false;
  const value = token.replace(OPERATOR, '');
  if (DIGITS.test(value)) return noLeadingZero(value);
  if (DOTTED.test(value)) {
    const parts = value.split('.');
    // seconds.nanoseconds: the fraction keeps its zeros; an entity id has none in any part
    if (parts.length === 2 && NANOS.test(parts[1]!)) return noLeadingZero(parts[0]!);
    return parts.every(noLeadingZero);
  }
  if (HEX.test(value) && /[0-9]/.test(value)) return value === value.toLowerCase();
  return true;
}

/** Whether the raw URL is the canonical spelling of what the routes parse from it. */
export function isCanonicalUrl(url: string): boolean {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const segments = path.split('/').slice(1);
  // '/api/v1/blocks/' ends in an empty segment, '//' has one inside
  if (!segments.every(isCanonicalToken)) return false;
  if (mark === -1) return true;
  const search = url.slice(mark + 1);
  if (search === '') return false;
  for (const part of search.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return false;
    const name = part.slice(0, eq);
    if (name !== name.toLowerCase() || !PLAIN.test(name) || !isCanonicalToken(part.slice(eq + 1))) return false;
  }
  return true;
}

/**
 * The cache key of a request, or null when it is not cached: the method, the path and the parsed
 * query in the caller's order (it is not sorted, as `links.next` repeats that order), and the Host
 * header if `response.includeHostInLink` makes it part of the answer.
 */
export function requestKey(request: FastifyRequest, config: Config): string | null {
  if (request.method !== 'GET') return null;
  const url = request.url;
  if (!url.startsWith('/api/v1/') || url.startsWith('/api/v1/docs') || !isCanonicalUrl(url)) return null;
  const query = queryOf(request);
  if (query.error) return null;
  const path = url.split('?', 1)[0]!;
  const entries = JSON.stringify([...query.entries]);
  const host = config.response.includeHostInLink ? ` ${request.headers.host ?? ''}` : '';
  return `GET ${path}${host} ${entries}`;
}
