/**
 * `links.next` as the reference builds it: the caller's parsed query (lower-cased keys, decoded
 * values, nothing re-encoded) with each anchor field's continuation bound replaced or appended.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Order } from './params.js';
import { queryOf, type QueryValue, type RequestQuery } from './query.js';
import { tightestBounds } from '../domain/bounds.js';
import { splitFilter } from './filters.js';

export interface LinkAnchor {
  /** query key the continuation bound is written to */
  field: string;
  /** the last item's value, as it is written in the link */
  value: string;
  /** `gte`/`lte` instead of `gt`/`lt` */
  inclusive?: boolean;
  /** the field whose range decides whether a next page can exist (default: the first anchor) */
  primary?: boolean;
  /** converts a bound's value text to an integer for the empty-range check; null to ignore it */
  toBound?: (value: string) => bigint | null;
}

const RANGE_OPERATOR = /[gl]te?:/;
const LEADING_RANGE_OPERATOR = /^[gl]te?:/;
const SAME_DIRECTION: Record<Order, RegExp> = { asc: /gte?:/, desc: /lte?:/ };

function replaceBound(query: Map<string, QueryValue>, field: string, order: Order, term: string): void {
  const original = query.get(field);
  const pattern = SAME_DIRECTION[order];
  if (Array.isArray(original))
    query.set(
      field,
      original.filter((v) => !pattern.test(v)),
    );
  else if (original !== undefined && pattern.test(original)) query.delete(field);

  const current = query.get(field);
  // the reference tests the original value(s) as one string anchored at its start: an array's first element decides
  const first = Array.isArray(original) ? original[0] : original;
  if (current === undefined) {
    query.set(field, term);
  } else if (first !== undefined && LEADING_RANGE_OPERATOR.test(first)) {
    query.set(field, [...(Array.isArray(current) ? current : [current]), term]);
  }
}

/** Whether the bounds of `values` leave no value (upper < lower after making them inclusive). */
function isEmptyRange(values: QueryValue | undefined, toBound: LinkAnchor['toBound']): boolean {
  if (values === undefined || !toBound) return false;
  const filters: { operator: string; value: bigint }[] = [];
  for (const text of Array.isArray(values) ? values : [values]) {
    if (!RANGE_OPERATOR.test(text)) continue;
    const { operator, value } = splitFilter(text);
    const parsed = toBound(value);
    if (parsed !== null) filters.push({ operator, value: parsed });
  }
  const { lower, upper } = tightestBounds(filters);
  return lower !== null && upper !== null && upper < lower;
}

function serialize(query: Map<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of query) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${key}=${v}`);
  }
  return parts.length === 0 ? '' : '?' + parts.join('&');
}

/** The next-page URL for `path`, or null when the continuation range is empty. */
export function nextLink(path: string, query: RequestQuery, order: Order, anchors: readonly LinkAnchor[]): string | null {
  const next = query.clone();
  const operator = order === 'asc' ? 'gt' : 'lt';
  for (const anchor of anchors) {
    replaceBound(next, anchor.field, order, `${operator}${anchor.inclusive ? 'e' : ''}:${anchor.value}`);
  }
  const primary = anchors.find((a) => a.primary) ?? anchors[0];
  if (primary && isEmptyRange(next.get(primary.field), primary.toBound)) return null;
  return path.replace(/\/$/, '') + serialize(next);
}

/** The RFC 5988 header value that carries the same link. */
export function linkHeader(next: string): string {
  return `<${next}>; rel="next"`;
}

/**
 * The `links` of a list response, every list route's: the next page's URL continuing after the
 * anchors, also sent in a `Link` header; `next` is null without anchors (no further page) or when
 * the continuation range is empty.
 */
export function listLinks(
  request: FastifyRequest,
  reply: FastifyReply,
  order: Order,
  anchors: readonly LinkAnchor[],
  config: Pick<Config, 'port' | 'response'>,
): { next: string | null } {
  const path = anchors.length > 0 ? nextLink(request.url.split('?')[0]!, queryOf(request), order, anchors) : null;
  const next = path && config.response.includeHostInLink ? linkOrigin(request, config.port) + path : path;
  if (next) reply.header('link', linkHeader(next));
  return { next };
}

/** A host name (letters, digits, hyphens, dots) or an IPv6 literal in brackets; nothing else a URL could be steered by. */
const LINK_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[[0-9A-Fa-f:.]+\]$/;

/**
 * `response.includeHostInLink`: `scheme://hostname:port` before the link's path, as the reference
 * writes it (its configured port, not the Host header's). The host name is the client's Host header:
 * one that is not a plain host name or IP literal leaves the link relative, so that no header can
 * point a client's next request elsewhere (the reference used it unchecked).
 */
export function linkOrigin(request: FastifyRequest, configuredPort: number): string {
  const hostname = request.hostname;
  if (!LINK_HOST.test(hostname)) return '';
  // a listener on port 0 (tests, a supervisor choosing the port) has no configured port to name
  const port = configuredPort === 0 ? request.socket.localPort : configuredPort;
  return `${request.protocol}://${hostname}:${port}`;
}
