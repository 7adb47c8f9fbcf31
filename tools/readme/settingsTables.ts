/**
 * The README's tables of settings, generated from the settings table (src/settings/table.ts) so
 * that they cannot drift from it: every setting with its default and meaning, and the reference's
 * keys with the settings they set. `node dist/tools/main.js readme` rewrites them in place.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_PARTS, REDIS_PARTS, REFERENCE_DB_DEFAULTS, REFERENCE_REDIS_URI } from '../../src/referenceConfig.js';
import type { Leaf } from '../../src/settings/leaf.js';
import { SETTING_LIST } from '../../src/settings/settings.js';
import { PROJECT_ROOT } from '../../src/paths.js';

export const README_PATH = join(PROJECT_ROOT, 'README.md');

const code = (text: string) => `\`${text}\``;

/** A default as the README shows it. */
export function shownDefault(leaf: Leaf<unknown>): string {
  if (leaf.shown !== undefined) return leaf.shown;
  const value = leaf.default;
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : code(`[${value.join(', ')}]`);
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? 'none' : code(JSON.stringify(value));
  if (typeof value === 'string') return value === '' ? 'empty' : code(value);
  return String(value);
}

function settingsTable(): string {
  const rows = SETTING_LIST.map(({ path, leaf }) => `| ${code(path)} | ${shownDefault(leaf)} | ${leaf.doc} |`);
  return ['| Setting | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function referenceTable(): string {
  const parts = Object.values(REFERENCE_DB_DEFAULTS).join(', ');
  const rows = [
    `| ${DB_PARTS.filter((p) => p !== 'db.primaryHost')
      .map(code)
      .join(', ')} | ${code('db.url')} (a part left out takes the reference's default: ${parts}) |`,
    `| ${code('db.primaryHost')} | ${code('db.url')} with that host (the writable primary), and ${code('db.replicas')} the URL with ${code('db.host')} (where the reference sends its other reads) |`,
    `| ${REDIS_PARTS.map(code).join(', ')} | ${code('cache.redis.url')}: ${code('redis.uri')} (default ${code(REFERENCE_REDIS_URI)}) when both \`enabled\` are true, else none |`,
    ...SETTING_LIST.flatMap(({ path, leaf }) => {
      if (!leaf.ref) return [];
      const note = leaf.refDuration ? ' (a duration: `60d`, `35m`, `1h30m`)' : leaf.refEnum ? ' (`VERIFY_CA` is `verify-ca`)' : '';
      return [`| ${code(leaf.ref)}${note} | ${code(path)} |`];
    }),
  ];
  return ['| `hiero.mirror.rest.…` / `hiero.mirror.common.…` | Setting here |', '|---|---|', ...rows].join('\n');
}

const BLOCKS: Record<string, () => string> = { settings: settingsTable, 'reference settings': referenceTable };

const begin = (name: string) => `<!-- generated from src/settings/table.ts: ${name} -->`;
const END = '<!-- end of generated table -->';

/** `readme` with every generated table replaced by its current text. */
export function withGeneratedTables(readme: string): string {
  let text = readme;
  for (const [name, render] of Object.entries(BLOCKS)) {
    const start = text.indexOf(begin(name));
    const end = start < 0 ? -1 : text.indexOf(END, start);
    if (start < 0 || end < 0) throw new Error(`README.md has no block "${begin(name)}" … "${END}"`);
    text = `${text.slice(0, start)}${begin(name)}\n${render()}\n${text.slice(end)}`;
  }
  return text;
}

/** Rewrites the README's generated tables; whether anything changed. */
export function updateReadme(path = README_PATH): boolean {
  const before = readFileSync(path, 'utf8');
  const after = withGeneratedTables(before);
  if (after !== before) writeFileSync(path, after);
  return after !== before;
}
