/**
 * Loading the service's configuration: the defaults of the settings table (src/settings/table.ts),
 * overridden by an optional config file (JSON or YAML, `LQS_CONFIG_FILE`) and then by environment
 * variables. The result is frozen: nothing changes it once the service has started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument as parseYamlDocument } from 'yaml';
import { isReferenceFile, referenceDbUrl, type Translated, translateReferenceEnv, translateReferenceFile } from './referenceConfig.js';
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

/** The reference's connection parts given so far, over its files and variables: one `db.url` from all of them. */
class ReferenceDb {
  private readonly parts: Record<string, string> = {};
  private readonly names: string[] = [];

  /** Adds a layer's parts and, when it has any, sets `db.url` from everything given so far. */
  apply(config: Plain, origins: Map<string, string>, layer: Translated['db'], where: (name: string) => string): void {
    if (layer.names.length === 0) return;
    Object.assign(this.parts, layer.parts);
    this.names.push(...layer.names.map(where));
    (config.db as Plain).url = referenceDbUrl(this.parts);
    origins.set('db.url', this.names.join(', '));
  }
}

/** Merges one config file into `config`; whether it was in the reference's layout. */
function mergeFile(config: Plain, origins: Map<string, string>, file: string, variable: string, warn: Warn, refDb: ReferenceDb): boolean {
  const parsed = readConfigFile(file, variable);
  if (!isReferenceFile(parsed)) {
    mergeFrom(config, parsed, (path) => `config file ${file}: ${path}`);
    for (const { path } of SETTING_LIST) origins.set(path, `${path} in ${file}`);
    return false;
  }
  let reference: ReturnType<typeof translateReferenceFile>;
  try {
    reference = translateReferenceFile(parsed as Plain);
  } catch (err) {
    throw err instanceof ConfigError ? new ConfigError(`config file ${file}: ${err.message}`) : err;
  }
  if (reference.deprecated.length > 0)
    warn(`config file ${file}: the 'hedera' prefix is deprecated, read as 'hiero': ${reference.deprecated.join(', ')}`);
  if (reference.ignored.length > 0)
    warn(`config file ${file}: ignoring settings of the reference this service does not use: ${reference.ignored.join(', ')}`);
  mergeFrom(config, reference.settings, (path) => `config file ${file}: ${reference.origins[path] ?? path}`);
  for (const [path, key] of Object.entries(reference.origins)) origins.set(path, `${key} in ${file}`);
  refDb.apply(config, origins, reference.db, (key) => `${key} in ${file}`);
  return true;
}

/**
 * Defaults ← the reference's files in CONFIG_PATH ← config file (ours, or the reference's
 * `hiero.mirror.rest` layout) ← `HIERO_MIRROR_*` (and deprecated `HEDERA_MIRROR_*`) variables ←
 * `DATABASE_URL`, `PORT` ← `LQS_*`. Reference keys we do not model are ignored with one warning
 * (`warn`, stderr by default). A configuration of the reference that names no database means the
 * reference's default one, as it does for the reference: never the embedded demo database.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  file = env.LQS_CONFIG_FILE,
  warn: Warn = (message) => process.stderr.write(`warning: ${message}\n`),
): Config {
  const config = structuredClone(defaultConfig()) as unknown as Plain;
  const origins = new Map<string, string>();
  let referenceGiven = false;
  const refDb = new ReferenceDb();
  for (const found of referenceFiles(env)) referenceGiven = mergeFile(config, origins, found, 'CONFIG_PATH', warn, refDb) || referenceGiven;
  if (file) referenceGiven = mergeFile(config, origins, file, 'LQS_CONFIG_FILE', warn, refDb) || referenceGiven;
  const reference = translateReferenceEnv(env);
  if (reference.deprecated.length > 0)
    warn(`the HEDERA_MIRROR_ variables are deprecated, read as HIERO_MIRROR_: ${reference.deprecated.join(', ')}`);
  if (reference.ignored.length > 0) warn(`ignoring variables of the reference this service does not use: ${reference.ignored.join(', ')}`);
  mergeFrom(config, reference.settings, (path) => `${reference.origins[path] ?? path} (${path})`);
  for (const [path, name] of Object.entries(reference.origins)) origins.set(path, `${name} (${path})`);
  refDb.apply(config, origins, reference.db, (name) => `${name} (db.url)`);
  referenceGiven ||= reference.given;

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
  if (referenceGiven && db.url === '') {
    db.url = referenceDbUrl();
    origins.set('db.url', "the reference's default database (hiero.mirror.rest.db.*)");
  }
  validate(config as unknown as Config, (path) => origins.get(path) ?? path);
  return deepFreeze(config as unknown as Config);
}
