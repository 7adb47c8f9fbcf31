/**
 * `lqs config` and `serve --print-config`: the effective configuration, every setting with its
 * value and where it came from (the default, a file and its key, a variable, the command line),
 * as YAML or JSON. Secrets are masked: passwords in URLs, the metrics scrape's password, the admin
 * users' passwords and hashes.
 */
import { stringify as toYaml } from 'yaml';
import type { LoadedConfig } from '../config.js';
import { SETTING_LIST } from '../settings/settings.js';

const MASK = '****';

/** A URL with its password masked (a text that is no URL is masked whole). */
function maskUrl(text: string): string {
  if (text === '') return text;
  try {
    const url = new URL(text);
    if (url.password) url.password = MASK;
    return url.toString();
  } catch {
    return MASK;
  }
}

/** `user:secret` with the secret masked. */
const maskUser = (entry: string): string => (entry.includes(':') ? `${entry.slice(0, entry.indexOf(':'))}:${MASK}` : MASK);

function masked(path: string, value: unknown): unknown {
  if (path === 'admin.users') return (value as string[]).map(maskUser);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskUrl(v) : v));
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? maskUrl(value) : value === '' ? '' : MASK;
  return value;
}

export interface PrintedSetting {
  value: unknown;
  from: string;
}

/**
 * Every setting's value (secrets masked) and origin; `commandLine` names the settings a command
 * line option changed, by path, with the option.
 */
export function effectiveSettings(loaded: LoadedConfig, commandLine: Record<string, string> = {}): Record<string, PrintedSetting> {
  const out: Record<string, PrintedSetting> = {};
  for (const { path, leaf } of SETTING_LIST) {
    const value = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], loaded.config);
    const from = commandLine[path] ? `command line (${commandLine[path]})` : (loaded.origins.get(path) ?? 'default');
    out[path] = { value: leaf.secret ? masked(path, value) : value, from };
  }
  return out;
}

/** The settings as YAML or JSON text (bigints written exactly). */
export function formatSettings(settings: Record<string, PrintedSetting>, format: 'yaml' | 'json'): string {
  if (format === 'yaml') return toYaml(settings, { lineWidth: 0 });
  return `${JSON.stringify(settings, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}
