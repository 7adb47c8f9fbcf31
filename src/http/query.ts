/**
 * Query-string parsing as the reference does it: qs with nesting depth 1 (strict) and an array
 * limit of `query.maxRepeatedQueryParameters`; keys lower-cased and merged in first-seen order;
 * `order` values lower-cased; all other values verbatim.
 */
import type { FastifyRequest } from 'fastify';
import qs from 'qs';

export type QueryValue = string | string[];

export class RequestQuery {
  constructor(
    /** lower-cased keys in first-seen order; a repeated key holds an array */
    readonly entries: Map<string, QueryValue>,
    /** the qs error (depth or array limit) that makes this request a 400, if any */
    readonly error: string | null = null,
  ) {}

  static empty(): RequestQuery {
    return new RequestQuery(new Map());
  }

  /** All values of a key, in order. */
  values(key: string): string[] {
    const v = this.entries.get(key);
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  }

  /** The last value of a key (the reference's "last value wins" rule). */
  last(key: string): string | undefined {
    return this.values(key).at(-1);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** A copy whose entries can be changed without touching this one (link building). */
  clone(): Map<string, QueryValue> {
    return new Map([...this.entries].map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));
  }
}

/** The parsed query of a request (what the app's query-string parser made of it; empty before parsing). */
export function queryOf(request: FastifyRequest): RequestQuery {
  return request.query instanceof RequestQuery ? request.query : RequestQuery.empty();
}

const LOWER_CASED_VALUES = new Set(['order', 'result']);

/** qs yields strings, arrays and (for `a[b]=`) objects; anything not a string is kept as text that no rule accepts. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : '[object]';
}

/** The key qs drops whatever its options; it is kept as a parameter no route accepts. */
const PROTO_KEY = '__proto__';

/**
 * Parses a query string. Keys named like Object.prototype's members (`toString`, `constructor`,
 * `__proto__`) are parameters like any other, so that they get the same 400 as any unknown one:
 * qs keeps them in a prototype-less object (by default it drops them silently, and `__proto__`
 * always), and nothing downstream looks a key up on an ordinary object.
 */
export function parseQueryString(text: string, maxRepeated: number): RequestQuery {
  let parsed: Record<string, unknown>;
  let protoKey = false;
  try {
    parsed = qs.parse(text, {
      arrayLimit: maxRepeated,
      depth: 1,
      strictDepth: true,
      throwOnLimitExceeded: true,
      plainObjects: true,
      allowPrototypes: true,
      decoder: (str, decode, charset, type) => {
        const decoded = decode(str, decode, charset) as string;
        if (type === 'key' && (decoded === PROTO_KEY || decoded.startsWith(PROTO_KEY + '['))) protoKey = true;
        return decoded;
      },
    });
  } catch (err) {
    return new RequestQuery(new Map(), err instanceof Error ? err.message : 'Invalid query string');
  }
  const entries = new Map<string, QueryValue>();
  if (protoKey) parsed = { ...parsed, [PROTO_KEY]: '' };
  for (const [key, raw] of Object.entries(parsed)) {
    const lowerKey = key.toLowerCase();
    const canonical = (v: unknown) => (LOWER_CASED_VALUES.has(lowerKey) ? asText(v).toLowerCase() : asText(v));
    const value: QueryValue = Array.isArray(raw) ? raw.map(canonical) : canonical(raw);
    const existing = entries.get(lowerKey);
    if (existing === undefined) entries.set(lowerKey, value);
    else entries.set(lowerKey, [...(Array.isArray(existing) ? existing : [existing]), ...(Array.isArray(value) ? value : [value])]);
  }
  return new RequestQuery(entries);
}
