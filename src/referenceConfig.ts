/**
 * The reference's configuration where it overlaps ours: a `hiero.mirror.rest` (and
 * `hiero.mirror.common`) YAML or JSON file, and the `HIERO_MIRROR_REST_*` / `HIERO_MIRROR_COMMON_*`
 * variables, translated into our settings so that an operator's existing configuration works
 * unchanged. Keys of the reference that we do not model are collected, for one warning.
 */
import { ConfigError } from './settings/configError.js';
import { SETTING_LIST } from './settings/settings.js';

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reference's connection defaults (`hiero.mirror.rest.db.*`), used for the parts a configuration leaves out. */
export const REFERENCE_DB_DEFAULTS = {
  host: '127.0.0.1',
  port: '5432',
  name: 'mirror_node',
  username: 'mirror_api',
  password: 'mirror_api_pass',
};

/** Reference path under `hiero.mirror.rest` (or `hiero.mirror.common`, prefixed `common.`) → our dotted path, from the settings table. */
export const MAPPED: Readonly<Record<string, string>> = Object.fromEntries(
  SETTING_LIST.flatMap(({ path, leaf }) => (leaf.ref ? [[leaf.ref, path]] : [])),
);
/** The reference's connection parts, which together make our `db.url` (and `db.replicas` with `db.primaryHost`). */
export const DB_PARTS = ['db.host', 'db.port', 'db.name', 'db.username', 'db.password', 'db.primaryHost'];
/** The reference's Redis response cache keys, which together make our `cache.redis.url`. */
export const REDIS_PARTS = ['cache.response.enabled', 'redis.enabled', 'redis.uri'];
/** The reference's default Redis (`hiero.mirror.rest.redis.uri`). */
export const REFERENCE_REDIS_URI = 'redis://127.0.0.1:6379';
/** Reference keys read together, over every layer of its configuration: a later layer changes one part and keeps the others. */
const COMBINED = [...DB_PARTS, ...REDIS_PARTS];
/** Every reference path we read, for matching variable names case-insensitively. */
const KNOWN = [...Object.keys(MAPPED), ...COMBINED];
const DURATIONS = new Set(SETTING_LIST.flatMap(({ leaf }) => (leaf.ref && leaf.refDuration ? [leaf.ref] : [])));
const ENUMS = new Set(SETTING_LIST.flatMap(({ leaf }) => (leaf.ref && leaf.refEnum ? [leaf.ref] : [])));

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
};

/** A reference duration (`60d`, `35m`, `1h30m`, or milliseconds as a number) in nanoseconds. */
export function durationNs(value: unknown, name: string): bigint {
  if (typeof value === 'number' || typeof value === 'bigint' || /^\d+$/.test(String(value))) return BigInt(value as number) * UNIT_NS.ms!;
  const text = String(value).trim();
  const parts = [...text.matchAll(/(\d+)\s*(ns|us|ms|s|m|h|d)/g)];
  if (
    parts.length === 0 ||
    parts
      .map((p) => p[0])
      .join('')
      .replace(/\s/g, '') !== text.replace(/\s/g, '')
  ) {
    throw new ConfigError(`${name}: ${JSON.stringify(text)} is not a duration (such as 60d, 35m or 1h30m)`);
  }
  return parts.reduce((sum, p) => sum + BigInt(p[1]!) * UNIT_NS[p[2]!]!, 0n);
}

export interface Translated {
  /** our settings, nested, ready for mergeSettings */
  settings: Plain;
  /** dotted reference keys we do not model */
  ignored: string[];
  /** our dotted path → the reference key or variable(s) it came from */
  origins: Record<string, string>;
  /** keys or variables under the deprecated `hedera` prefix, read as their `hiero` names */
  deprecated: string[];
  /** whether any reference setting was given (read or ignored) */
  given: boolean;
  /**
   * The parts read together (DB_PARTS, REDIS_PARTS) given, by reference path, and the keys or
   * variables they came from: the caller combines them over every layer of the reference's
   * configuration, so that a password variable keeps a file's host.
   */
  combined: { parts: Record<string, string>; names: Record<string, string> };
}

/** The reference's database URL from its connection parts, each left out taking the reference's default. */
export function referenceDbUrl(parts: Partial<Record<keyof typeof REFERENCE_DB_DEFAULTS, string>> = {}): string {
  const c = { ...REFERENCE_DB_DEFAULTS, ...parts };
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  return `postgres://${encodeURIComponent(c.username)}:${encodeURIComponent(c.password)}@${host}:${c.port}/${encodeURIComponent(c.name)}`;
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

/** Translates flat reference entries (path relative to `hiero.mirror.rest`, `common.` for `hiero.mirror.common`) into ours. */
function translate(entries: [string, unknown, string][]): Omit<Translated, 'deprecated' | 'given'> {
  const settings: Plain = {};
  const ignored: string[] = [];
  const origins: Record<string, string> = {};
  const combined: Translated['combined'] = { parts: {}, names: {} };
  for (const [path, value, name] of entries) {
    if (COMBINED.includes(path)) {
      combined.parts[path] = String(value);
      combined.names[path] = name;
    } else if (MAPPED[path]) {
      const ours = DURATIONS.has(path) ? durationNs(value, name) : ENUMS.has(path) ? String(value).toLowerCase().replace(/_/g, '-') : value;
      setPath(settings, MAPPED[path], ours);
      origins[MAPPED[path]] = name;
    } else {
      ignored.push(name);
    }
  }
  return { settings, ignored, origins, combined };
}

/** Reference keys whose value is an object (headers) read whole, with or without the `hiero.mirror.rest.` prefix. */
const OBJECT_VALUED = new Set(
  SETTING_LIST.flatMap(({ leaf }) => (leaf.ref && (leaf.kind === 'headers' || leaf.kind === 'pathHeaders') ? [leaf.ref] : [])),
);

function flatten(node: unknown, prefix: string, out: [string, unknown][]): void {
  if (!isPlain(node) || OBJECT_VALUED.has(prefix.replace(/^(hiero|hedera)\.mirror\.rest\./, ''))) {
    out.push([prefix, node]);
    return;
  }
  for (const [k, v] of Object.entries(node)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
}

/** Whether a parsed config file is in the reference's layout (a top-level `hiero`, or the deprecated `hedera`, key). */
export function isReferenceFile(parsed: unknown): boolean {
  return isPlain(parsed) && ('hiero' in parsed || 'hedera' in parsed);
}

/**
 * A `hiero.mirror.*` file's settings in ours; every key outside `hiero.mirror.rest`/`common` that we
 * do not read is listed. `hedera.mirror.*` keys are read as `hiero.mirror.*` (the reference migrates
 * them too), the `hiero` one winning when a file has both.
 */
export function translateReferenceFile(parsed: Plain): Translated {
  const flat: [string, unknown][] = [];
  flatten(parsed, '', flat);
  const entries = new Map<string, [string, unknown, string]>();
  const ignored: string[] = [];
  const deprecated: string[] = [];
  for (const [key, value] of [...flat].sort(([a], [b]) => Number(a.startsWith('hiero.')) - Number(b.startsWith('hiero.')))) {
    const current = key.startsWith('hedera.mirror.') ? `hiero.${key.slice('hedera.'.length)}` : key;
    if (current !== key) deprecated.push(key);
    if (current.startsWith('hiero.mirror.rest.')) entries.set(current, [current.slice('hiero.mirror.rest.'.length), value, key]);
    else if (current.startsWith('hiero.mirror.common.'))
      entries.set(current, [`common.${current.slice('hiero.mirror.common.'.length)}`, value, key]);
    else ignored.push(key);
  }
  const result = translate([...entries.values()]);
  return { ...result, ignored: [...ignored, ...result.ignored], deprecated, given: flat.length > 0 };
}

/**
 * The `HIERO_MIRROR_REST_*` and `HIERO_MIRROR_COMMON_*` variables in our settings (names matched
 * case-insensitively, `_` between keys), and the deprecated `HEDERA_MIRROR_*` ones the reference
 * still reads, a `HIERO_` variable winning over the `HEDERA_` one of the same setting.
 */
export function translateReferenceEnv(env: NodeJS.ProcessEnv): Translated {
  const byName = new Map<string, string>();
  for (const path of KNOWN) {
    const [scope, rest] = path.startsWith('common.') ? ['COMMON', path.slice(7)] : ['REST', path];
    byName.set(`MIRROR_${scope}_${rest.split('.').join('_').toUpperCase()}`, path);
  }
  const entries = new Map<string, [string, unknown, string]>();
  const ignored: string[] = [];
  const deprecated: string[] = [];
  const names = Object.keys(env)
    .filter((name) => /^(HIERO|HEDERA)_MIRROR_(REST|COMMON)_/i.test(name) && env[name] !== undefined && env[name] !== '')
    .sort((a, b) => Number(/^HIERO_/i.test(a)) - Number(/^HIERO_/i.test(b)));
  for (const name of names) {
    if (/^HEDERA_/i.test(name)) deprecated.push(name);
    const path = byName.get(name.toUpperCase().replace(/^(HIERO|HEDERA)_/, ''));
    if (path) entries.set(path, [path, env[name], name]);
    else ignored.push(name);
  }
  const result = translate([...entries.values()]);
  return { ...result, ignored: [...ignored, ...result.ignored], deprecated, given: names.length > 0 };
}
