/**
 * `ETag` on every 200 and 304 Not Modified when `If-None-Match` names it. The tag is weak (`W/"…"`):
 * the same JSON may leave gzip-, br- or un-encoded, and is the same representation in each case.
 * A step of the pipeline's onSend, before compression, on the body as serialised.
 */
import * as crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * SHA-1 in base64url: the one-shot `crypto.hash` (Node 20.12 and later) spares a Hash object per
 * response; the same digest either way. A faster non-cryptographic hash would let text written onto
 * the ledger be shaped to repeat an earlier version's tag (tools/bench/README.md has the figures).
 */
// a namespace import: a named import of `hash` would fail to link on the Node 20 releases before it
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
const sha1Base64url: (body: string | Buffer) => string = oneShot
  ? (body) => oneShot('sha1', body, 'base64url')
  : (body) => crypto.createHash('sha1').update(body).digest('base64url');

function etagOf(body: string | Buffer): string {
  return `W/"${sha1Base64url(body)}"`;
}

/** Whether an `If-None-Match` value matches `etag` under the weak comparison of RFC 9110 §13.1.2. */
function noneMatch(header: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  for (const part of header.split(',')) {
    const candidate = part.trim();
    if (candidate === '*' || candidate.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/** Tags a 200 and turns it into a 304 when the request's `If-None-Match` names the tag; returns the payload to send. */
export function tagResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) return payload;
  const etag = etagOf(payload);
  reply.header('etag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && (request.method === 'GET' || request.method === 'HEAD') && noneMatch(ifNoneMatch, etag)) {
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return '';
  }
  return payload;
}
