/**
 * Service configuration: defaults in code, overridden by an optional config file (JSON or YAML,
 * `LQS_CONFIG_FILE`) and then by environment variables. Keys under `response`, `query` and
 * `network` use the reference's names (`hiero.mirror.rest.*`) so that its settings carry over.
 */
import { readFileSync } from 'node:fs';
import { parseDocument as parseYamlDocument } from 'yaml';
import { isReferenceFile, translateReferenceEnv, translateReferenceFile } from './referenceConfig.js';

export interface Config {
  port: number;
  host: string;
  /** hiero.mirror.common.shard / realm: the shard and realm ids are read and written in. */
  shard: bigint;
  realm: bigint;
  db: {
    /** PostgreSQL connection URL; unset means the embedded PGlite database. */
    url: string;
    /** PGlite data directory; empty means in memory. */
    dataDir: string;
    poolSize: number;
    statementTimeoutMs: number;
    connectionTimeoutMs: number;
    /** apply migrations at start-up (off for a read-only role on a database we did not create) */
    migrate: boolean;
    /** PostgreSQL URLs of streaming replicas that serve the reads (src/db/replicas.ts); empty: all on db.url */
    replicas: string[];
    /** a replica whose replay lag exceeds this leaves the rotation until it catches up */
    maxReplicaLagMs: number;
    /** how often each replica's replay lag is checked */
    replicaCheckIntervalMs: number;
    /** reads that must see the newest data and go to the primary (db.url) even with replicas: `blocks` (the block lookups) */
    primaryReads: string[];
  };
  response: {
    limit: { default: number; max: number; tokenBalance: { singleAccount: number } };
    includeHostInLink: boolean;
    enableDelegationAddress: boolean;
    /** gzip or br for a client that accepts it (the reference's `response.compression`) */
    compression: boolean;
    /** bodies smaller than this many bytes are sent uncompressed */
    compressionThreshold: number;
  };
  query: {
    maxRepeatedQueryParameters: number;
    bindTimestampRange: boolean;
    maxTransactionsTimestampRangeNs: bigint;
    maxTransactionConsensusTimestampRangeNs: bigint;
    maxFileAttempts: number;
    precedingTransactionTypes: number[];
  };
  network: { chainId: string };
  log: {
    /** pino level at start-up (`silly` is taken as `trace`); changed at run time by POST /change-log-level */
    level: string;
    /** readable lines for people (pino-pretty) instead of JSON lines */
    pretty: boolean;
  };
  /** Prometheus metrics at `${config.uriPath}/metrics/` on the public listener (the reference's `metrics.*`) */
  metrics: {
    enabled: boolean;
    config: { authentication: boolean; username: string; password: string; uriPath: string };
  };
  server: {
    /** processes serving the public port (a cluster primary supervises them); 0: one per core. Other than 1 needs PostgreSQL */
    workers: number;
    /** concurrent requests beyond which new ones get 503 (in each worker process) */
    maxInFlight: number;
    /** whole-request deadline against slow clients, headers included */
    requestTimeoutMs: number;
    /** a computed response not written to the client within this is dropped with its connection */
    responseTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxUrlLength: number;
    maxQueryParameters: number;
    maxHeaderBytes: number;
  };
  /** the admin listener (POST /change-log-level), separate from the public one */
  admin: {
    enabled: boolean;
    port: number;
    host: string;
    /** `user:password` or `user:scrypt$salt$hash` entries; with usersFile empty too, every request is refused */
    users: string[];
    /** a file of further entries, one per line (`#` comments and blank lines ignored); read at start-up */
    usersFile: string;
    /** failed attempts from one client address within failureWindowMs before it is locked out */
    maxFailures: number;
    /** failed attempts naming one user, from any address, within failureWindowMs before that user name is locked out */
    maxUserFailures: number;
    /** failed attempts in all within failureWindowMs before every request is locked out */
    maxTotalFailures: number;
    failureWindowMs: number;
    /** how long a locked-out client, user name or listener is answered 429 */
    lockoutMs: number;
    /** client addresses (and user names) whose failures are remembered at most (the oldest are forgotten first) */
    maxTrackedClients: number;
    /** scrypt password verifications running at once; more get 429 */
    maxConcurrentVerifications: number;
    /** scrypt password verifications a second (a burst of as many); more get 429 */
    maxVerificationsPerSecond: number;
  };
  /** load the demo ledger into an empty database: `auto` does so for the embedded database only */
  demo: { load: 'auto' | 'true' | 'false' };
  /** the response cache (src/http/responseCache.ts): 200s kept for their cache-control max-age */
  cache: {
    enabled: boolean;
    /** bound of the in-process LRU (payloads, keys and links, and a measured per-entry overhead) */
    maxBytes: number;
    /** a larger response is not kept in the process (it may still be shared through Redis) */
    maxEntryBytes: number;
    redis: {
      /** `redis://host:port[/db]`; empty: no shared cache */
      url: string;
      /** prefix of every key (processes serving the same database share it) */
      keyPrefix: string;
      /** a GET that takes longer is abandoned and the request answered from the database */
      timeoutMs: number;
      connectTimeoutMs: number;
      /** after a failure or timeout Redis is left alone this long */
      backoffMs: number;
    };
  };
}

export function defaultConfig(): Config {
  return {
    port: 5551,
    host: '0.0.0.0',
    shard: 0n,
    realm: 0n,
    db: {
      url: '',
      dataDir: './data',
      poolSize: 10,
      statementTimeoutMs: 20_000,
      connectionTimeoutMs: 3_000,
      migrate: true,
      replicas: [],
      maxReplicaLagMs: 5_000,
      replicaCheckIntervalMs: 1_000,
      primaryReads: ['blocks'],
    },
    response: {
      limit: { default: 25, max: 100, tokenBalance: { singleAccount: 1000 } },
      includeHostInLink: false,
      enableDelegationAddress: false,
      compression: true,
      compressionThreshold: 1024,
    },
    query: {
      maxRepeatedQueryParameters: 100,
      bindTimestampRange: false,
      maxTransactionsTimestampRangeNs: 5_184_000_000_000_000n,
      maxTransactionConsensusTimestampRangeNs: 35n * 60n * 1_000_000_000n,
      maxFileAttempts: 12,
      precedingTransactionTypes: [11, 15],
    },
    network: { chainId: '0x128' },
    log: { level: 'info', pretty: false },
    metrics: { enabled: true, config: { authentication: false, username: '', password: '', uriPath: '/swagger' } },
    server: {
      workers: 1,
      maxInFlight: 1024,
      requestTimeoutMs: 30_000,
      responseTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxUrlLength: 4096,
      maxQueryParameters: 100,
      maxHeaderBytes: 16_384,
    },
    admin: {
      enabled: true,
      port: 5552,
      host: '127.0.0.1',
      users: [],
      usersFile: '',
      maxFailures: 5,
      maxUserFailures: 10,
      maxTotalFailures: 20,
      failureWindowMs: 60_000,
      lockoutMs: 60_000,
      maxTrackedClients: 10_000,
      maxConcurrentVerifications: 1,
      maxVerificationsPerSecond: 2,
    },
    demo: { load: 'auto' },
    cache: {
      enabled: true,
      maxBytes: 64 * 1024 * 1024,
      maxEntryBytes: 1024 * 1024,
      redis: { url: '', keyPrefix: 'lqs:', timeoutMs: 50, connectTimeoutMs: 1_000, backoffMs: 1_000 },
    },
  };
}

/** A setting that cannot be used; the message names it (and the variable or file it came from) and the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Plain = Record<string, unknown>;

function isPlainObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Coerces `value` to the type of `template` (bigint, number, boolean, string, string[] or number[]). */
function coerce(template: unknown, value: unknown, path: string): unknown {
  const fail = (expected: string) => new ConfigError(`${path}: ${JSON.stringify(String(value))} is not ${expected}`);
  if (typeof template === 'bigint') {
    if (typeof value === 'bigint') return value;
    if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) {
      return BigInt(value);
    }
    throw fail('an integer');
  }
  if (typeof template === 'number') {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n === 'bigint') return Number(n);
    if (typeof n !== 'number' || Number.isNaN(n)) throw fail('a number');
    return n;
  }
  if (typeof template === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw fail('true or false');
  }
  if (Array.isArray(template)) {
    const items = Array.isArray(value)
      ? value
      : String(value)
          .split(',')
          .filter((s) => s !== '');
    const numeric = template.length > 0 && typeof template[0] === 'number';
    return items.map((i) => {
      if (numeric && Number.isNaN(Number(i))) throw fail('a list of numbers');
      return numeric ? Number(i) : String(i);
    });
  }
  if (typeof template === 'string') {
    if (isPlainObject(value) || Array.isArray(value)) throw fail('a string');
    return String(value);
  }
  throw fail('a setting');
}

/**
 * Deep-merges `overrides` into `target` in place, coercing values to the types of the defaults.
 * Unknown keys are errors so that a typo in a config file is not silently ignored, unless
 * `ignoreUnknown` (the reference's per-case settings name keys we do not model).
 */
export function mergeConfig(target: Plain, overrides: unknown, ignoreUnknown = false, prefix = ''): void {
  if (!isPlainObject(overrides)) return;
  for (const [key, value] of Object.entries(overrides)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!(key in target)) {
      if (ignoreUnknown) continue;
      throw new ConfigError(`${path}: unknown setting`);
    }
    const current = target[key];
    if (isPlainObject(current)) {
      if (!isPlainObject(value) && value !== null && value !== undefined)
        throw new ConfigError(`${path}: a group of settings, not ${JSON.stringify(String(value))}`);
      mergeConfig(current, value, ignoreUnknown, path);
    } else target[key] = coerce(current, value, path);
  }
}

/** Every leaf setting as [dotted path, env variable name], e.g. response.limit.max → LQS_RESPONSE_LIMIT_MAX. */
export function settingNames(config: Config = defaultConfig()): [string, string][] {
  const out: [string, string][] = [];
  const walk = (node: Plain, path: string[]) => {
    for (const [k, v] of Object.entries(node)) {
      if (isPlainObject(v)) walk(v, [...path, k]);
      else out.push([[...path, k].join('.'), 'LQS_' + [...path, k].join('_').toUpperCase()]);
    }
  };
  walk(config as unknown as Plain, []);
  return out;
}

function setPath(root: Plain, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = root;
  for (const p of parts.slice(0, -1)) {
    node[p] ??= {};
    node = node[p] as Plain;
  }
  node[parts.at(-1)!] = value;
}

/** Reads a JSON or YAML config file; every failure is a ConfigError naming the file. */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${(err as Error).message})`;
    throw new ConfigError(`config file ${path} (LQS_CONFIG_FILE) ${why}`);
  }
  try {
    if (path.endsWith('.json')) return JSON.parse(text);
    const doc = parseYamlDocument(text, { intAsBigInt: true, prettyErrors: true });
    if (doc.errors.length > 0) throw doc.errors[0];
    return doc.toJS();
  } catch (err) {
    const firstLine = String((err as Error).message)
      .split('\n')[0]!
      .replace(/:$/, '');
    throw new ConfigError(`config file ${path} (LQS_CONFIG_FILE) is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${firstLine}`);
  }
}

/** The reads `db.primaryReads` can send to the primary. */
export const PRIMARY_READS: readonly string[] = ['blocks'];

/** Checks what a type alone does not: ports, sizes, the database URL. `origin` names where a setting came from. */
function validate(config: Config, origin: (path: string) => string): void {
  const port = (path: string, value: number) => {
    if (!Number.isInteger(value) || value < 0 || value > 65535)
      throw new ConfigError(`${origin(path)}: ${value} is not a port (an integer from 0 to 65535)`);
  };
  port('port', config.port);
  port('admin.port', config.admin.port);
  const { workers } = config.server;
  if (!Number.isInteger(workers) || workers < 0 || workers > 256)
    throw new ConfigError(
      `${origin('server.workers')}: ${workers} is not a number of worker processes (an integer from 0, one per core, to 256)`,
    );
  if (workers !== 1 && !config.db.url) {
    throw new ConfigError(
      `${origin('server.workers')}: ${workers} worker processes need PostgreSQL (db.url, DATABASE_URL): the embedded PGlite database can be open in one process only; set server.workers to 1 or use PostgreSQL`,
    );
  }
  if (!Number.isInteger(config.db.poolSize) || config.db.poolSize < 1)
    throw new ConfigError(`${origin('db.poolSize')}: ${config.db.poolSize} is not a pool size (an integer of 1 or more)`);
  const postgresUrl = (path: string, text: string) => {
    let url: URL | null = null;
    try {
      url = new URL(text);
    } catch {
      // reported below
    }
    if (!url || !/^postgres(ql)?:$/.test(url.protocol) || !url.hostname) {
      throw new ConfigError(
        `${origin(path)}: ${JSON.stringify(text)} is not a PostgreSQL URL (postgres://user:password@host:5432/database)`,
      );
    }
  };
  if (config.db.url) postgresUrl('db.url', config.db.url);
  if (config.db.replicas.length > 0 && !config.db.url)
    throw new ConfigError(`${origin('db.replicas')}: read replicas need the primary's PostgreSQL URL in db.url (DATABASE_URL)`);
  for (const replica of config.db.replicas) postgresUrl('db.replicas', replica);
  for (const [path, value, min] of [
    ['db.maxReplicaLagMs', config.db.maxReplicaLagMs, 0],
    ['db.replicaCheckIntervalMs', config.db.replicaCheckIntervalMs, 10],
  ] as const) {
    if (!Number.isFinite(value) || value < min)
      throw new ConfigError(`${origin(path)}: ${value} is not a number of milliseconds of ${min} or more`);
  }
  for (const read of config.db.primaryReads) {
    if (!PRIMARY_READS.includes(read))
      throw new ConfigError(`${origin('db.primaryReads')}: ${JSON.stringify(read)} is not one of ${PRIMARY_READS.join(', ')}`);
  }
}

/** Merges `settings`, naming `origins[path]` (where the setting came from) in an error. */
function mergeFrom(config: Config, settings: unknown, origin: (path: string) => string): void {
  try {
    mergeConfig(config as unknown as Plain, settings);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const at = err.message.indexOf(': ');
    const path = err.message.slice(0, at);
    throw new ConfigError(`${origin(path)}: ${err.message.slice(at + 2)}`);
  }
}

/**
 * Defaults ← config file (ours, or the reference's `hiero.mirror.rest` layout) ←
 * `HIERO_MIRROR_REST_*`/`HIERO_MIRROR_COMMON_*` ← `DATABASE_URL`, `PORT` ← `LQS_*`. Reference keys we
 * do not model are ignored with one warning (`warn`, stderr by default).
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  file = env.LQS_CONFIG_FILE,
  warn: (message: string) => void = (message) => process.stderr.write(`warning: ${message}\n`),
): Config {
  const config = defaultConfig();
  const origins = new Map<string, string>();
  if (file) {
    const parsed = readConfigFile(file);
    if (isReferenceFile(parsed)) {
      let reference: ReturnType<typeof translateReferenceFile>;
      try {
        reference = translateReferenceFile(parsed as Plain);
      } catch (err) {
        throw err instanceof ConfigError ? new ConfigError(`config file ${file}: ${err.message}`) : err;
      }
      if (reference.ignored.length > 0)
        warn(`config file ${file}: ignoring settings of the reference this service does not use: ${reference.ignored.join(', ')}`);
      mergeFrom(config, reference.settings, (path) => `config file ${file}: ${reference.origins[path] ?? path}`);
      for (const [path, key] of Object.entries(reference.origins)) origins.set(path, `${key} in ${file}`);
    } else {
      mergeFrom(config, parsed, (path) => `config file ${file}: ${path}`);
      for (const [path] of settingNames()) origins.set(path, `${path} in ${file}`);
    }
  }
  const reference = translateReferenceEnv(env);
  if (reference.ignored.length > 0) warn(`ignoring variables of the reference this service does not use: ${reference.ignored.join(', ')}`);
  mergeFrom(config, reference.settings, (path) => `${reference.origins[path] ?? path} (${path})`);
  for (const [path, name] of Object.entries(reference.origins)) origins.set(path, `${name} (${path})`);

  const variables: [string, string, string][] = [];
  if (env.DATABASE_URL) variables.push(['db.url', 'DATABASE_URL', env.DATABASE_URL]);
  if (env.PORT) variables.push(['port', 'PORT', env.PORT]);
  for (const [path, name] of settingNames(config)) {
    const value = env[name];
    if (value !== undefined && value !== '') variables.push([path, name, value]);
  }
  for (const [path, name, value] of variables) {
    const one: Plain = {};
    setPath(one, path, value);
    mergeFrom(config, one, () => `${name} (${path})`);
    origins.set(path, `${name} (${path})`);
  }
  validate(config, (path) => origins.get(path) ?? path);
  return config;
}

export function cloneConfig(config: Config): Config {
  return structuredClone(config);
}
