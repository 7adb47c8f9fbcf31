/** No resource folder under src/routes imports another: what they share lives outside them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The module specifiers of a source's static imports and re-exports and of its dynamic imports. */
function importSpecifiers(text: string): string[] {
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
}

/** The resource folder (first folder under `routesDir`) a path is in, or null for a file directly in it or outside it. */
function resourceOf(routesDir: string, path: string): string | null {
  const parts = relative(routesDir, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0]! : null;
}

/** `file → specifier` for every relative import from one resource folder into another. */
function crossResourceImports(routesDir: string): string[] {
  const found: string[] = [];
  for (const file of sources(routesDir)) {
    const from = resourceOf(routesDir, file);
    if (from === null) continue;
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const to = resourceOf(routesDir, resolve(dirname(file), specifier));
      if (to !== null && to !== from) found.push(`${relative(routesDir, file)} → ${specifier}`);
    }
  }
  return found;
}

describe('route modules', () => {
  it('no resource folder under src/routes imports another', () => {
    assert.deepEqual(crossResourceImports(join(PROJECT_ROOT, 'src', 'routes')), []);
  });

  it('finds an import between resource folders, static or dynamic, at any depth', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lqs-routes-'));
    try {
      mkdirSync(join(dir, 'a', 'sub'), { recursive: true });
      mkdirSync(join(dir, 'b'));
      writeFileSync(join(dir, 'shared.ts'), `import { x } from './a/x.js';\n`);
      writeFileSync(join(dir, 'a', 'x.ts'), `import { y } from '../shared.js';\nimport type { Z } from './sub/z.js';\n`);
      writeFileSync(join(dir, 'a', 'sub', 'z.ts'), `import {\n  w,\n} from '../../b/w.js';\n`);
      writeFileSync(join(dir, 'b', 'w.ts'), `export { v } from "../a/x.js";\nconst m = await import('../a/sub/z.js');\n`);
      assert.deepEqual(crossResourceImports(dir).sort(), [
        `a${sep}sub${sep}z.ts → ../../b/w.js`,
        `b${sep}w.ts → ../a/sub/z.js`,
        `b${sep}w.ts → ../a/x.js`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
