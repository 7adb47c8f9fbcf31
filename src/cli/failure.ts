/**
 * One clear line for every start-up and command failure: what failed, naming the setting, the file
 * or the variable, and where there is one the fix. Stacks are for `debug` only.
 */
import { ConfigError, type Config } from '../config.js';
import { grantAdvice } from '../db/schemaRequirements.js';
import { UserError } from '../userError.js';
import { describeDataDirFailure } from '../db/dataDirFailures.js';
import { isInMemory } from '../db/pglite.js';

export { UserError };

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  errors?: unknown[];
  port?: number;
  address?: string;
  syscall?: string;
  hostname?: string;
  path?: string;
}

/** host:port, user and database of a PostgreSQL URL, without its password. */
function target(config: Config | undefined): { where: string; host: string; port: string; user: string; database: string } | null {
  if (!config?.db.url) return null;
  try {
    const url = new URL(config.db.url);
    const host = url.hostname || 'localhost';
    const port = url.port || '5432';
    const user = decodeURIComponent(url.username) || process.env.PGUSER || 'postgres';
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
    return { where: `${host}:${port}`, host, port, user, database };
  } catch {
    return null;
  }
}

/** The listener a listen error is about: the admin one when its port or host is the error's. */
function listener(
  err: PgError,
  config: Config | undefined,
): { what: string; variable: string; port: number | undefined; host: string | undefined } {
  if (config?.admin.enabled && err.port === config.admin.port && err.port !== config.port) {
    return { what: 'admin listener', variable: 'admin.port (LQS_ADMIN_PORT)', port: err.port, host: config.admin.host };
  }
  return {
    what: 'public listener',
    variable: 'port (PORT or LQS_PORT)',
    port: err.port ?? config?.port,
    host: err.address ?? config?.host,
  };
}

/** Certificate checks that fail against `db.tls.ca` (node's TLS error codes). */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/**
 * The line describing `err`; `config` is the configuration in force when it loaded, `source`
 * where its database came from (`DATABASE_URL (db.url)` unless told).
 */
export function describeFailure(err: unknown, config?: Config, source = 'DATABASE_URL (db.url)'): string {
  if (err instanceof UserError || err instanceof ConfigError) return err.message;
  const e = (err ?? {}) as PgError;
  // several addresses tried (localhost: ::1 and 127.0.0.1) fail together
  const code = e.code ?? (Array.isArray(e.errors) ? (e.errors[0] as PgError | undefined)?.code : undefined);
  const db = target(config);
  const dbWhere = db ? `PostgreSQL at ${db.where}` : 'PostgreSQL';
  const message = String(e.message ?? err).split('\n')[0]!;
  if (code && UNTRUSTED_CERTIFICATE.has(code))
    return `${dbWhere} presented a certificate that ${config?.db.tls.ca ? `the certificate authority of db.tls.ca (${config.db.tls.ca})` : 'no trusted certificate authority'} did not sign (${code}); correct db.tls.ca, or db.sslMode require to encrypt without checking`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `${dbWhere} presented a certificate for another host name (${message}); connect by a name the certificate carries, or db.sslMode verify-ca`;
  if (code === 'CERT_HAS_EXPIRED') return `${dbWhere} presented an expired certificate (CERT_HAS_EXPIRED); renew the server's certificate`;
  if (/server does not support SSL/i.test(message))
    return `${dbWhere} does not accept TLS (its ssl setting is off); turn ssl on in the server, or set db.sslMode to disable and db.tls.enabled to false`;
  // the embedded database's files: a full disk, permissions, damage met after opening (migrating, loading, reading)
  if (config && !config.db.url && !isInMemory(config.db.dataDir)) {
    const line = describeDataDirFailure(err, config.db.dataDir);
    if (line) return line;
  }
  switch (code) {
    case 'ECONNREFUSED':
      if (e.syscall === 'connect' || db) return `cannot connect to ${dbWhere}: connection refused; start the server or correct ${source}`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host ${JSON.stringify(e.hostname ?? db?.host ?? '')} of ${source}`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${dbWhere} (${code}); check the host of ${source} and the network`;
    case '3D000': {
      const name = /database "([^"]+)"/.exec(message)?.[1] ?? db?.database ?? '';
      const options = db ? ` -h ${db.host} -p ${db.port} -U ${db.user}` : '';
      return `database "${name}" does not exist on ${dbWhere}: create it with \`createdb${options} ${name}\` or name another in ${source}`;
    }
    case '28000':
      return `${dbWhere} refused the connection: ${message}; create the role (\`createuser ${db?.user ?? 'NAME'}\`) or set another user in ${source}`;
    case '28P01':
      return `${dbWhere} refused the connection: ${message}; correct the password in ${source}`;
    case '42501': {
      const table = /permission denied for (?:table|relation) "?([\w.]+)"?/.exec(message)?.[1];
      if (table) return `${dbWhere}: ${grantAdvice(db?.user ?? 'NAME', [table])}`;
      return `${dbWhere}: ${message}; run \`migrate\` as a role that owns the schema, and \`serve --no-migrate\` as the read-only one`;
    }
    case '57P03':
      return `${dbWhere} is starting up or shutting down; try again in a moment`;
    case '53300':
      return `${dbWhere} has no connection slots left (too many clients); lower db.poolSize (LQS_DB_POOLSIZE) or raise max_connections`;
    case '23505':
      return `the database already holds these rows (${e.detail ?? message}); load into an empty database, or reset it first`;
    case 'EADDRINUSE': {
      const l = listener(e, config);
      return `the ${l.what}'s port ${l.port} on ${l.host} is in use by another process; stop it or choose another ${l.variable}`;
    }
    case 'EACCES':
      if (e.syscall === 'listen') {
        const l = listener(e, config);
        return `the ${l.what} may not listen on port ${l.port} (permission denied); choose a port above 1023 with ${l.variable}`;
      }
      if (e.path) return `${e.path}: permission denied`;
      break;
    case 'EADDRNOTAVAIL': {
      const l = listener(e, config);
      return `the ${l.what} cannot listen on ${l.host}: no such address on this machine; correct ${l.what === 'admin listener' ? 'admin.host (LQS_ADMIN_HOST)' : 'host (LQS_HOST)'}`;
    }
    case 'ENOENT':
      if (e.path) return `${e.path}: no such file or directory`;
      break;
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return `${dbWhere} did not answer within ${config?.db.connectionTimeoutMs ?? '?'} ms (db.connectionTimeoutMs); check that it is up and reachable`;
  }
  if (/Connection terminated unexpectedly/i.test(message))
    return `${dbWhere} closed the connection at once; check that it is a PostgreSQL server and that it accepts this client`;
  return `${(err as Error)?.name ?? 'Error'}: ${message}`;
}
