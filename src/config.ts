/**
 * Loading the service's configuration: the defaults of the settings table (src/settings/table.ts),
 * overridden by an optional config file (JSON or YAML, `LQS_CONFIG_FILE`) and then by environment
 * variables. The result is frozen: nothing changes it once the service has started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument as parseYamlDocument } from 'yaml';
import {
  DB_PARTS,
  isReferenceFile,
  REDIS_PARTS,
  REFERENCE_DB_DEFAULTS,
  REFERENCE_REDIS_URI,
  referenceDbUrl,
  type Translated,
  translateReferenceEnv,
  translateReferenceFile,
} from './referenceConfig.js';
import { ConfigError } from './settings/configError.js';
import { deepFreeze, defaultConfig, mergeSettings, SETTING_LIST, validate } from './settings/settings.js';
import type { Config } from './settings/table.js';

export { ConfigError } from './settings/configError.js';
export { configWith, defaultConfig } from './settings/settings.js';
export { type Config, type ConfigOverrides, PRIMARY_READS } from './settings/table.js';

type Plain = Record<string, unknown>;

function setPath(root: Plain, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = root;
  for (const p of parts.slice(0, -1)) {
    node[p] ??= {};
    node = node[p] as Plain;
  }
  node[parts.at(-1)!] = value;
}

/** Reads a JSON or YAML config file; every failure is a ConfigError naming the file and the variable that named it. */
export function readConfigFile(path: string, variable = 'LQS_CONFIG_FILE'): unknown {
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
    throw new ConfigError(`config file ${path} (${variable}) ${why}`);
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
    throw new ConfigError(`config file ${path} (${variable}) is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${firstLine}`);
  }
}

/** Merges `settings`, naming `origins[path]` (where the setting came from) in an error. */
function mergeFrom(config: Plain, settings: unknown, origin: (path: string) => string): void {
  try {
    mergeSettings(config, settings);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const at = err.message.indexOf(': ');
    const path = err.message.slice(0, at);
    throw new ConfigError(`${origin(path)}: ${err.message.slice(at + 2)}`);
  }
}

type Warn = (message: string) => void;

/** The reference's configuration files: `application.yml` then `application.yaml` (or CONFIG_NAME's) in CONFIG_PATH. */
function referenceFiles(env: NodeJS.ProcessEnv): string[] {
  if (!env.CONFIG_PATH) return [];
  const name = env.CONFIG_NAME || 'application';
  const files = [`${name}.yml`, `${name}.yaml`].map((f) => join(env.CONFIG_PATH!, f)).filter((f) => existsSync(f));
  if (files.length === 0)
    throw new ConfigError(
      `CONFIG_PATH ${env.CONFIG_PATH} has no ${name}.yml or ${name}.yaml${env.CONFIG_NAME ? ' (CONFIG_NAME)' : ''}: correct CONFIG_PATH or unset it`,
    );
  return files;
}

/** A reference boolean as the reference reads it from YAML or a variable. */
const isTrue = (value: string | undefined): boolean => value !== undefined && value.trim().toLowerCase() === 'true';

/**
 * The reference's parts read together (its database connection, its Redis response cache), given so
 * far over its files and variables: each layer that gives any sets the settings they make from all
 * of them, so that a password variable keeps a file's host.
 */
class ReferenceParts {
  private readonly parts: Record<string, string> = {};
  private readonly names: Record<string, string> = {};
  /** db.replicas holds the replica db.primaryHost made */
  private madeReplica = false;

  apply(config: Plain, origins: Map<string, string>, layer: Translated['combined'], where: (name: string) => string): void {
    const given = Object.keys(layer.parts);
    if (given.length === 0) return;
    Object.assign(this.parts, layer.parts);
    for (const path of given) this.names[path] = where(layer.names[path]!);
    const from = (paths: string[]) =>
      paths
        .filter((p) => this.names[p])
        .map((p) => this.names[p])
        .join(', ');
    if (given.some((p) => DB_PARTS.includes(p))) this.applyDb(config, origins, from(DB_PARTS));
    if (given.some((p) => REDIS_PARTS.includes(p))) this.applyRedis(config, origins, from(REDIS_PARTS));
  }

  /**
   * `db.url` from the parts; with `db.primaryHost` (the reference's writable primary, its other
   * connections going to `db.host`, a replica or a load balancer in front of replicas) the primary
   * is `db.url` and `db.host` its one replica, as `db.primaryReads` keeps the reads that must be
   * fresh on the primary, as the reference does.
   */
  private applyDb(config: Plain, origins: Map<string, string>, from: string): void {
    const db = config.db as Plain;
    const parts = {
      host: this.parts['db.host'],
      port: this.parts['db.port'],
      name: this.parts['db.name'],
      username: this.parts['db.username'],
      password: this.parts['db.password'],
    };
    const given = Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const primary = this.parts['db.primaryHost']?.trim() ?? '';
    const reads = referenceDbUrl(given);
    if (primary === '' || primary === (given.host ?? REFERENCE_DB_DEFAULTS.host)) {
      db.url = reads;
      // a later layer emptying primaryHost takes back the replica an earlier one made
      if (this.madeReplica) {
        db.replicas = [];
        origins.delete('db.replicas');
        this.madeReplica = false;
      }
    } else {
      db.url = referenceDbUrl({ ...given, host: primary });
      db.replicas = [reads];
      origins.set('db.replicas', from);
      this.madeReplica = true;
    }
    origins.set('db.url', from);
  }

  /** `cache.redis.url`: the reference's `redis.uri` when its response cache is on (`cache.response.enabled` and `redis.enabled`). */
  private applyRedis(config: Plain, origins: Map<string, string>, from: string): void {
    const redis = (config.cache as Plain).redis as Plain;
    const on =
      isTrue(this.parts['cache.response.enabled']) && (this.parts['redis.enabled'] === undefined || isTrue(this.parts['redis.enabled']));
    redis.url = on ? this.parts['redis.uri'] || REFERENCE_REDIS_URI : '';
    origins.set('cache.redis.url', from);
  }
}

/** Every setting path a file in our layout gives. */
function pathsIn(parsed: unknown): string[] {
  const valueAt = (path: string): unknown =>
    path.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Plain)[key] : undefined), parsed);
  return SETTING_LIST.filter(({ path }) => valueAt(path) !== undefined).map(({ path }) => path);
}

/** What loading found along the way, reported once at the end. */
interface Findings {
  /** reference keys and variables this service does not use */
  ignored: string[];
  /** whether any of the reference's configuration was given */
  referenceGiven: boolean;
}

/** Merges one config file into `config`. */
function mergeFile(
  config: Plain,
  origins: Map<string, string>,
  file: string,
  variable: string,
  warn: Warn,
  parts: ReferenceParts,
  findings: Findings,
): void {
  const parsed = readConfigFile(file, variable);
  if (!isReferenceFile(parsed)) {
    mergeFrom(config, parsed, (path) => `config file ${file}: ${path}`);
    for (const path of pathsIn(parsed)) origins.set(path, `${path} in ${file}`);
    return;
  }
  let reference: ReturnType<typeof translateReferenceFile>;
  try {
    reference = translateReferenceFile(parsed as Plain);
  } catch (err) {
    throw err instanceof ConfigError ? new ConfigError(`config file ${file}: ${err.message}`) : err;
  }
  if (reference.deprecated.length > 0)
    warn(`config file ${file}: the 'hedera' prefix is deprecated, read as 'hiero': ${reference.deprecated.join(', ')}`);
  findings.ignored.push(...reference.ignored.map((key) => `${key} (${file})`));
  mergeFrom(config, reference.settings, (path) => `config file ${file}: ${reference.origins[path] ?? path}`);
  for (const [path, key] of Object.entries(reference.origins)) origins.set(path, `${key} in ${file}`);
  parts.apply(config, origins, reference.combined, (key) => `${key} in ${file}`);
  findings.referenceGiven = true;
}

/** A loaded configuration and, for each setting given, where it came from (a setting not in it has its default). */
export interface LoadedConfig {
  config: Config;
  origins: ReadonlyMap<string, string>;
}

const toStderr: Warn = (message) => process.stderr.write(`warning: ${message}\n`);

/**
 * Defaults ← the reference's files in CONFIG_PATH ← config file (ours, or the reference's
 * `hiero.mirror.rest` layout) ← `HIERO_MIRROR_*` (and deprecated `HEDERA_MIRROR_*`) variables ←
 * `DATABASE_URL`, `PORT` ← `LQS_*`. Reference keys we do not model are ignored with one warning
 * listing them all (`warn`, stderr by default). A configuration of the reference that names no
 * database means the reference's default one, as it does for the reference: never the embedded
 * demo database.
 */
export function loadConfigWithOrigins(
  env: NodeJS.ProcessEnv = process.env,
  file = env.LQS_CONFIG_FILE,
  warn: Warn = toStderr,
): LoadedConfig {
  const config = structuredClone(defaultConfig()) as unknown as Plain;
  const origins = new Map<string, string>();
  const findings: Findings = { ignored: [], referenceGiven: false };
  const parts = new ReferenceParts();
  for (const found of referenceFiles(env)) mergeFile(config, origins, found, 'CONFIG_PATH', warn, parts, findings);
  if (file) mergeFile(config, origins, file, 'LQS_CONFIG_FILE', warn, parts, findings);
  const reference = translateReferenceEnv(env);
  if (reference.deprecated.length > 0)
    warn(`the HEDERA_MIRROR_ variables are deprecated, read as HIERO_MIRROR_: ${reference.deprecated.join(', ')}`);
  findings.ignored.push(...reference.ignored);
  mergeFrom(config, reference.settings, (path) => `${reference.origins[path] ?? path} (${path})`);
  for (const [path, name] of Object.entries(reference.origins)) origins.set(path, `${name} (${path})`);
  parts.apply(config, origins, reference.combined, (name) => name);
  findings.referenceGiven ||= reference.given;
  if (findings.ignored.length > 0)
    warn(`ignoring settings of the reference that have no meaning in this service: ${findings.ignored.join(', ')}`);

  const variables: [string, string, string][] = [];
  if (env.DATABASE_URL) variables.push(['db.url', 'DATABASE_URL', env.DATABASE_URL]);
  if (env.PORT) variables.push(['port', 'PORT', env.PORT]);
  for (const { path, env: name } of SETTING_LIST) {
    const value = env[name];
    if (value !== undefined && value !== '') variables.push([path, name, value]);
  }
  for (const [path, name, value] of variables) {
    const one: Plain = {};
    setPath(one, path, value);
    mergeFrom(config, one, () => `${name} (${path})`);
    origins.set(path, `${name} (${path})`);
  }
  const db = config.db as Plain;
  if (findings.referenceGiven && db.url === '') {
    db.url = referenceDbUrl();
    origins.set('db.url', "the reference's default database (hiero.mirror.rest.db.*)");
  }
  validate(config as unknown as Config, (path) => origins.get(path) ?? path);
  return { config: deepFreeze(config as unknown as Config), origins };
}

/** The configuration loadConfigWithOrigins loads. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, file = env.LQS_CONFIG_FILE, warn: Warn = toStderr): Config {
  return loadConfigWithOrigins(env, file, warn).config;
}
