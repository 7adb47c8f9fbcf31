/**
 * The service (src/) runs on a production install: every package it imports is a runtime
 * dependency, and it never imports the tools (tools/), which may use development dependencies.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The module specifiers of a source file's static and dynamic imports and re-exports. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s*'([^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);
}

/** The package of a bare import specifier (`@scope/name/sub` → `@scope/name`, `name/sub.js` → `name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const SRC = join(PROJECT_ROOT, 'src');

describe('dependencies', () => {
  it('declares every package imported under src/ in dependencies, and nothing unused there', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of sources(SRC)) {
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('.')) continue;
        if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        imported.add(packageOf(specifier));
      }
    }
    const declared = new Set(Object.keys(pkg.dependencies));
    assert.deepEqual([...imported].filter((p) => !declared.has(p)).sort(), [], 'imported but not in dependencies');
    assert.deepEqual([...declared].filter((p) => !imported.has(p)).sort(), [], 'in dependencies but imported nowhere under src/');
  });

  it('imports nothing outside src/ from src/ (the tools and tests depend on the service, never the reverse)', () => {
    const outside: string[] = [];
    for (const file of sources(SRC)) {
      for (const specifier of specifiersOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(file), specifier));
        if (target.startsWith('..')) outside.push(`${relative(PROJECT_ROOT, file)}: ${specifier}`);
      }
    }
    assert.deepEqual(outside, []);
  });
});
