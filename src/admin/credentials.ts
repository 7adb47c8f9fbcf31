/**
 * Admin credentials: `user:password` or `user:scrypt$<salt base64>$<hash base64>` entries, from
 * `admin.users` and the lines of `admin.usersFile`. Passwords are compared in constant time.
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';

/** scrypt cost parameters of every hash (N = 2^14, r = 8, p = 1: about 16 MiB and tens of milliseconds). */
const SCRYPT_PARAMS: ScryptOptions = { N: 16384, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 64;
const MIN_HASH_BYTES = 16;
const SCRYPT_PREFIX = 'scrypt$';

type Secret = { kind: 'plain'; digest: Buffer } | { kind: 'scrypt'; salt: Buffer; hash: Buffer };

export class CredentialsError extends Error {}

function scrypt(password: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, length, SCRYPT_PARAMS, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** `scrypt$<salt>$<hash>` for `password`, what an entry `user:<this>` holds. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, HASH_BYTES);
  return `${SCRYPT_PREFIX}${salt.toString('base64')}$${hash.toString('base64')}`;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function parseSecret(secret: string, where: string): Secret {
  if (!secret.startsWith(SCRYPT_PREFIX)) return { kind: 'plain', digest: sha256(secret) };
  const parts = secret.slice(SCRYPT_PREFIX.length).split('$');
  const [salt, hash] = parts.map((p) => (BASE64.test(p) ? Buffer.from(p, 'base64') : Buffer.alloc(0)));
  if (parts.length !== 2 || !salt?.length || !hash || hash.length < MIN_HASH_BYTES) {
    throw new CredentialsError(`${where}: malformed scrypt hash (expected scrypt$<salt base64>$<hash base64>)`);
  }
  return { kind: 'scrypt', salt, hash };
}

/** Derives a key from a password (scrypt with the fixed cost parameters); tests count its calls. */
export type KeyDerivation = (password: string, salt: Buffer, length: number) => Promise<Buffer>;

/**
 * The configured users and their secrets; an empty set refuses everyone. Every verification costs
 * one scrypt of the same parameters, whichever user is named: a hashed user's own, a dummy one for
 * a plain-text password and for an unknown user. The work done, and so the time taken and the
 * verification bound a burst meets (429), do not tell which user names exist or how they are kept.
 */
export class Credentials {
  /** the salt of the dummy derivations, fixed for the process */
  private readonly dummySalt = randomBytes(SALT_BYTES);

  private constructor(
    private readonly users: ReadonlyMap<string, Secret>,
    private readonly derive: KeyDerivation,
  ) {}

  /** Parses entries; `source` says where an entry comes from in error messages (which never show the secret). */
  static parse(entries: readonly { entry: string; source: string }[], derive: KeyDerivation = scrypt): Credentials {
    const users = new Map<string, Secret>();
    for (const { entry, source } of entries) {
      const colon = entry.indexOf(':');
      const user = colon > 0 ? entry.slice(0, colon) : '';
      const secret = colon > 0 ? entry.slice(colon + 1) : '';
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
      if (!user || !secret || /[\x00-\x1f\x7f]/.test(entry)) {
        throw new CredentialsError(`${source}: expected user:password or user:scrypt$<salt>$<hash>`);
      }
      if (users.has(user)) throw new CredentialsError(`${source}: user ${JSON.stringify(user)} is given more than once`);
      users.set(user, parseSecret(secret, source));
    }
    return new Credentials(users, derive);
  }

  /** `admin.users`, then the lines of `admin.usersFile`. */
  static fromConfig(admin: Config['admin'], derive?: KeyDerivation): Credentials {
    const entries = admin.users.map((entry, i) => ({ entry: entry.trim(), source: `admin.users[${i}]` }));
    if (admin.usersFile) {
      let text: string;
      try {
        text = readFileSync(admin.usersFile, 'utf8');
      } catch (err) {
        throw new CredentialsError(`admin.usersFile: cannot read ${admin.usersFile}: ${(err as Error).message}`);
      }
      text.split(/\r?\n/).forEach((line, i) => {
        const entry = line.trim();
        if (entry && !entry.startsWith('#')) entries.push({ entry, source: `${admin.usersFile}:${i + 1}` });
      });
    }
    return Credentials.parse(entries, derive);
  }

  get size(): number {
    return this.users.size;
  }

  /** Whether `password` is that of `user`, at the cost of one scrypt whatever the user (see the class). */
  async verify(user: string, password: string): Promise<boolean> {
    const secret = this.users.get(user);
    const hashed = secret?.kind === 'scrypt' ? secret : undefined;
    const derived = await this.derive(password, hashed?.salt ?? this.dummySalt, hashed?.hash.length ?? HASH_BYTES);
    if (secret === undefined) return false;
    if (secret.kind === 'plain') return timingSafeEqual(sha256(password), secret.digest);
    return timingSafeEqual(derived, secret.hash);
  }
}
