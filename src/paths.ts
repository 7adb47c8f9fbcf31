import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The project root, from both `src/` (tsx, tests) and compiled `dist/src/`. */
const here = fileURLToPath(new URL('.', import.meta.url));
export const PROJECT_ROOT = here.includes('/dist/') ? join(here, '..', '..') : join(here, '..');

export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'src', 'db', 'migrations');
export const OPENAPI_PATH = join(PROJECT_ROOT, 'api', 'openapi.yml');
export const DEFAULT_SPECS_DIR = join(PROJECT_ROOT, '..', 'shared', 'conformance', 'specs');
