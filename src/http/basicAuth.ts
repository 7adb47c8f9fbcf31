/** HTTP Basic credentials (RFC 7617): parsing the `Authorization` header and checking it in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

const BASIC = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;

/** The user and password of a Basic `Authorization` header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header === undefined ? null : BASIC.exec(header);
  if (!match) return undefined;
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether `header` carries exactly `user` and `password`, compared in constant time. */
export function basicAuthorized(header: string | undefined, user: string, password: string): boolean {
  const given = basicCredentials(header);
  return given !== undefined && timingSafeEqual(sha256(`${given.user}:${given.password}`), sha256(`${user}:${password}`));
}
