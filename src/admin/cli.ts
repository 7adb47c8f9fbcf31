/** `admin hash-password [USER]`: reads a password on stdin and prints an `admin.users` entry for it. */
import { text } from 'node:stream/consumers';
import { hashPassword } from './credentials.js';

export async function hashPasswordCommand(user: string | undefined, input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if (user !== undefined && (user === '' || user.includes(':'))) throw new Error('the user name must be non-empty and without ":"');
  // one trailing line break is the end of the line typed or echoed, not part of the password
  const password = (await text(input)).replace(/\r?\n$/, '');
  if (password === '') throw new Error('no password on stdin');
  const hash = await hashPassword(password);
  return user === undefined ? hash : `${user}:${hash}`;
}
