/**
 * TLS to PostgreSQL from `db.sslMode` and `db.tls.*` (the reference's keys), as node-postgres's
 * `ssl` option, the same for the primary and every replica. libpq's modes: `require` encrypts
 * without checking the certificate (as the reference does whenever `db.tls.enabled`), `verify-ca`
 * checks that `db.tls.ca` signed it, `verify-full` also that it names the host. node-postgres
 * cannot fall back to a plain connection, so `allow` and `prefer` connect without TLS, as libpq
 * does against a server without it.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { Config } from '../config.js';
import { ConfigError } from '../settings/configError.js';

function readPem(path: string, setting: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : (err as Error).message;
    throw new ConfigError(`${setting}: the file ${path} ${why}`);
  }
}

/** The `ssl` option of the configuration's PostgreSQL connections; undefined: none (a URL's own `sslmode` still applies). */
export function postgresTls(db: Config['db']): ConnectionOptions | undefined {
  const verify = db.sslMode === 'verify-ca' || db.sslMode === 'verify-full';
  const on = verify || db.sslMode === 'require' || db.tls.enabled;
  if (!on) return undefined;
  const ssl: ConnectionOptions = { rejectUnauthorized: verify };
  if (db.tls.ca) ssl.ca = readPem(db.tls.ca, 'db.tls.ca');
  else if (verify) throw new ConfigError(`db.sslMode: ${db.sslMode} checks the server's certificate against db.tls.ca, which is not set`);
  if (db.tls.cert) ssl.cert = readPem(db.tls.cert, 'db.tls.cert');
  if (db.tls.key) ssl.key = readPem(db.tls.key, 'db.tls.key');
  // verify-ca: the chain only, whatever host name the certificate carries
  if (db.sslMode === 'verify-ca') ssl.checkServerIdentity = () => undefined;
  return ssl;
}
