import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest folder above this module holding `api/openapi.yml` (works from src/ and any build folder). */
function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'api', 'openapi.yml')) && existsSync(join(dir, 'package.json'))) return dir;
    if (dir === dirname(dir)) throw new Error(`project root not found above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'src', 'db', 'migrations');
export const OPENAPI_PATH = join(PROJECT_ROOT, 'api', 'openapi.yml');
