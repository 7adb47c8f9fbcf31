/**
 * Service configuration: defaults in code, overridden by an optional config file (JSON or YAML,
 * `LQS_CONFIG_FILE`) and then by environment variables. Keys under `response`, `query` and
 * `network` use the reference's names (`hiero.mirror.rest.*`) so that its settings carry over.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

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
  };
  response: {
    limit: { default: number; max: number; tokenBalance: { singleAccount: number } };
    includeHostInLink: boolean;
    enableDelegationAddress: boolean;
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
  };
  server: {
    /** concurrent requests beyond which new ones get 503 */
    maxInFlight: number;
    /** whole-request deadline against slow clients */
    requestTimeoutMs: number;
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
    failureWindowMs: number;
    /** how long a locked-out client is answered 429 */
    lockoutMs: number;
    /** client addresses whose failures are remembered at most (the oldest are forgotten first) */
    maxTrackedClients: number;
  };
  /** load the demo ledger into an empty database: `auto` does so for the embedded database only */
  demo: { load: 'auto' | 'true' | 'false' };
  /** the response cache (src/http/responseCache.ts): 200s kept for their cache-control max-age */
  cache: {
    enabled: boolean;
    /** bound of the in-process LRU (payloads, headers and keys) */
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
    db: { url: '', dataDir: './data', poolSize: 10, statementTimeoutMs: 20_000, connectionTimeoutMs: 3_000, migrate: true },
    response: {
      limit: { default: 25, max: 100, tokenBalance: { singleAccount: 1000 } },
      includeHostInLink: false,
      enableDelegationAddress: false,
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
    log: { level: 'info' },
    server: {
      maxInFlight: 1024,
      requestTimeoutMs: 30_000,
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
      failureWindowMs: 60_000,
      lockoutMs: 60_000,
      maxTrackedClients: 10_000,
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

type Plain = Record<string, unknown>;

function isPlainObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Coerces `value` to the type of `template` (bigint, number, boolean, string, string[] or number[]). */
function coerce(template: unknown, value: unknown, path: string): unknown {
  const fail = () => new Error(`config ${path}: cannot use ${JSON.stringify(String(value))}`);
  if (typeof template === 'bigint') {
    if (typeof value === 'bigint') return value;
    if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) {
      return BigInt(value);
    }
    throw fail();
  }
  if (typeof template === 'number') {
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n === 'bigint') return Number(n);
    if (typeof n !== 'number' || Number.isNaN(n)) throw fail();
    return n;
  }
  if (typeof template === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw fail();
  }
  if (Array.isArray(template)) {
    const items = Array.isArray(value) ? value : String(value).split(',').filter((s) => s !== '');
    const numeric = template.length > 0 && typeof template[0] === 'number';
    return items.map((i) => (numeric ? Number(i) : String(i)));
  }
  if (typeof template === 'string') return String(value);
  throw fail();
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
      throw new Error(`config ${path}: unknown setting`);
    }
    const current = target[key];
    if (isPlainObject(current)) mergeConfig(current, value, ignoreUnknown, path);
    else target[key] = coerce(current, value, path);
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

export function readConfigFile(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { intAsBigInt: true });
}

/** Defaults ← config file ← environment (`LQS_*`, plus the conventional `DATABASE_URL` and `PORT`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, file = env.LQS_CONFIG_FILE): Config {
  const config = defaultConfig();
  if (file) mergeConfig(config as unknown as Plain, readConfigFile(file));
  const fromEnv: Plain = {};
  if (env.DATABASE_URL) setPath(fromEnv, 'db.url', env.DATABASE_URL);
  if (env.PORT) setPath(fromEnv, 'port', env.PORT);
  for (const [path, name] of settingNames(config)) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(fromEnv, path, value);
  }
  mergeConfig(config as unknown as Plain, fromEnv);
  return config;
}

export function cloneConfig(config: Config): Config {
  return structuredClone(config);
}
