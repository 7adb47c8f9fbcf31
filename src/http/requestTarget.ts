/**
 * What RFC 9112 asks of a request's target and Host before any route sees it: an absolute-form
 * target (`GET http://host/path`, what a proxy is sent) is served as its origin form (`/path`), so
 * that links, the response cache and Cache-Control see the path alone; an HTTP/1.1 request needs
 * exactly one Host header; an expectation other than `100-continue` cannot be met.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** Fastify's rewriteUrl: the origin form of an absolute-form target, any other target as it is. */
export function originForm(url: string): string {
  if (url.charCodeAt(0) === 47 /* '/' */) return url;
  const scheme = ABSOLUTE_FORM.exec(url);
  if (!scheme) return url;
  const rest = url.slice(scheme[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Throws the 400 of an HTTP/1.1 request without a Host header or any request with more than one (RFC 9112, 3.2). */
export function checkHost(request: IncomingMessage): void {
  const raw = request.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
  }
  if (hosts > 1) throw new ApiError(400, ['Bad request: more than one Host header']);
  if (hosts === 0 && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1) {
    throw new ApiError(400, ['Bad request: missing Host header']);
  }
}

/** Throws the 417 of an `Expect` the service cannot meet (anything but `100-continue`, which Node answers itself). */
export function checkExpectation(request: IncomingMessage): void {
  const expect = request.headers.expect;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue') {
    throw new ApiError(417, ['Expectation failed: only 100-continue is supported']);
  }
}
