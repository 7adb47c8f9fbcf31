/**
 * What the settings table (table.ts) yields: the defaults, the flat list of settings with their
 * `LQS_*` variables, merging overrides with the values coerced to each setting's type, validation,
 * and configurations frozen so that nothing changes them once an app is built.
 */
import { ConfigError } from './configError.js';
import { isLeaf, type Leaf } from './leaf.js';
import { type Config, type ConfigOverrides, SETTINGS } from './table.js';

type Plain = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Setting {
  /** dotted path, e.g. `response.limit.max` */
  path: string;
  /** its variable, e.g. `LQS_RESPONSE_LIMIT_MAX` */
  env: string;
  leaf: Leaf<unknown>;
}

function collect(node: Plain, prefix: string[], out: Setting[]): Setting[] {
  for (const [key, child] of Object.entries(node)) {
    const path = [...prefix, key];
    if (isLeaf(child)) out.push({ path: path.join('.'), env: `LQS_${path.join('_').toUpperCase()}`, leaf: child });
    else collect(child as Plain, path, out);
  }
  return out;
}

/** Every setting, in the table's order. */
export const SETTING_LIST: readonly Setting[] = collect(SETTINGS, [], []);
const BY_PATH = new Map(SETTING_LIST.map((s) => [s.path, s]));

export function settingAt(path: string): Setting | undefined {
  return BY_PATH.get(path);
}

function valuesOf(node: Plain): Plain {
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, isLeaf(v) ? structuredClone(v.default) : valuesOf(v as Plain)]));
}

/** Freezes `value` and everything it holds. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Coerces `value` to the type of `leaf` (bigint, number, boolean, string, string[] or number[]). */
function coerce(leaf: Leaf<unknown>, value: unknown, path: string): unknown {
  const fail = (expected: string) => new ConfigError(`${path}: ${JSON.stringify(String(value))} is not ${expected}`);
  switch (leaf.kind) {
    case 'bigint':
      if (typeof value === 'bigint') return value;
      if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) {
        return BigInt(value);
      }
      throw fail('an integer');
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n === 'bigint') return Number(n);
      if (typeof n !== 'number' || Number.isNaN(n)) throw fail('a number');
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw fail('true or false');
    case 'strings':
    case 'numbers': {
      const items = Array.isArray(value)
        ? value
        : String(value)
            .split(',')
            .filter((s) => s !== '');
      return items.map((i) => {
        if (leaf.kind === 'numbers' && Number.isNaN(Number(i))) throw fail('a list of numbers');
        return leaf.kind === 'numbers' ? Number(i) : String(i);
      });
    }
    case 'string':
      if (isPlainObject(value) || Array.isArray(value)) throw fail('a string');
      return String(value);
    case 'headers':
    case 'pathHeaders': {
      let parsed = value;
      if (typeof value === 'string') {
        try {
          parsed = JSON.parse(value);
        } catch {
          throw fail('a JSON object');
        }
      }
      const expected = leaf.kind === 'headers' ? 'an object of header names and values' : 'an object of route paths and header objects';
      if (!isPlainObject(parsed)) throw fail(expected);
      const headerMap = (node: unknown, at: string): Record<string, string> => {
        if (!isPlainObject(node)) throw new ConfigError(`${at}: not ${expected}`);
        return Object.fromEntries(
          Object.entries(node).map(([name, v]) => {
            if (isPlainObject(v) || Array.isArray(v) || v === null || v === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
              throw new ConfigError(`${at}: ${JSON.stringify(name)} is not a header name with a value`);
            return [name.toLowerCase(), String(v)];
          }),
        );
      };
      if (leaf.kind === 'headers') return headerMap(parsed, path);
      return Object.fromEntries(Object.entries(parsed).map(([route, h]) => [route, headerMap(h, `${path}.${route}`)]));
    }
  }
}

/**
 * Deep-merges `overrides` into `target` in place, coercing values to the settings' types. Unknown
 * keys are errors so that a typo in a config file is not silently ignored, unless `ignoreUnknown`
 * (the reference's per-case settings name keys this service does not model).
 */
export function mergeSettings(target: Plain, overrides: unknown, ignoreUnknown = false, prefix = ''): void {
  if (!isPlainObject(overrides)) return;
  for (const [key, value] of Object.entries(overrides)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!(key in target)) {
      if (ignoreUnknown) continue;
      throw new ConfigError(`${path}: unknown setting`);
    }
    const setting = BY_PATH.get(path);
    if (!setting) {
      if (!isPlainObject(value) && value !== null && value !== undefined)
        throw new ConfigError(`${path}: a group of settings, not ${JSON.stringify(String(value))}`);
      mergeSettings(target[key] as Plain, value, ignoreUnknown, path);
    } else if (setting.leaf.kind === 'headers' || setting.leaf.kind === 'pathHeaders') {
      // merged, as the reference merges its configuration layers: a later layer adds headers and routes
      const merged: Plain = { ...(target[key] as Plain) };
      for (const [name, v] of Object.entries(coerce(setting.leaf, value, path) as Plain))
        merged[name] = setting.leaf.kind === 'pathHeaders' ? { ...(merged[name] as Plain | undefined), ...(v as Plain) } : v;
      target[key] = merged;
    } else target[key] = coerce(setting.leaf, value, path);
  }
}

const isPostgresUrl = (text: string): boolean => {
  try {
    const url = new URL(text);
    return /^postgres(ql)?:$/.test(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
};

function isHttpOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** Checks each setting's bounds, then the rules between settings. `origin` names where a setting came from. */
export function validate(config: Config, origin: (path: string) => string): void {
  const valueAt = (path: string): unknown => path.split('.').reduce<unknown>((node, key) => (node as Plain)[key], config);
  for (const { path, leaf } of SETTING_LIST) {
    const value = valueAt(path);
    const { range, oneOf } = leaf;
    if (range && typeof value === 'number') {
      const bad =
        !Number.isFinite(value) ||
        (range.integer === true && !Number.isInteger(value)) ||
        (range.min !== undefined && value < range.min) ||
        (range.max !== undefined && value > range.max);
      if (bad) throw new ConfigError(`${origin(path)}: ${value} is not ${range.is}`);
    }
    const items = Array.isArray(value) ? (value as unknown[]) : [value];
    if (oneOf) {
      for (const item of items) {
        if (!oneOf.includes(String(item)))
          throw new ConfigError(`${origin(path)}: ${JSON.stringify(item)} is not one of ${oneOf.join(', ')}`);
      }
    }
    if (leaf.httpOrigin && value !== '' && !isHttpOrigin(String(value)))
      throw new ConfigError(`${origin(path)}: ${JSON.stringify(value)} is not the origin of an HTTP service (http://host:port, no path)`);
    if (leaf.postgresUrl) {
      for (const item of items) {
        if (item !== '' && !isPostgresUrl(String(item)))
          throw new ConfigError(
            `${origin(path)}: ${JSON.stringify(item)} is not a PostgreSQL URL (postgres://user:password@host:5432/database)`,
          );
      }
    }
  }
  const { workers } = config.server;
  if (workers !== 1 && !config.db.url) {
    throw new ConfigError(
      `${origin('server.workers')}: ${workers} worker processes need PostgreSQL (db.url, DATABASE_URL): the embedded PGlite database can be open in one process only; set server.workers to 1 or use PostgreSQL`,
    );
  }
  if (config.db.replicas.length > 0 && !config.db.url)
    throw new ConfigError(`${origin('db.replicas')}: read replicas need the primary's PostgreSQL URL in db.url (DATABASE_URL)`);
  const { lockTimeoutMs, statementTimeoutMs } = config.db;
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0 || (statementTimeoutMs > 0 && lockTimeoutMs >= statementTimeoutMs))
    throw new ConfigError(
      `${origin('db.lockTimeoutMs')}: ${lockTimeoutMs} is not a number of milliseconds from 0 to below db.statementTimeoutMs (${statementTimeoutMs})`,
    );
}

/** The defaults, frozen. */
export function defaultConfig(): Config {
  return deepFreeze(valuesOf(SETTINGS) as Config);
}

/**
 * `base` (the defaults unless given) with `overrides` applied, validated and frozen: how start-up,
 * tests and the conformance harness make the configuration of an app. `ignoreUnknown` skips keys
 * this service does not model (the reference's per-case settings).
 */
export function configWith(overrides: ConfigOverrides | Plain, base: Config = defaultConfig(), ignoreUnknown = false): Config {
  const config = structuredClone(base) as unknown as Plain;
  mergeSettings(config, overrides, ignoreUnknown);
  validate(config as unknown as Config, (path) => path);
  return deepFreeze(config as unknown as Config);
}
