import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';

/** The reference's API test cases, beside the project (`../shared`). */
export const DEFAULT_SPECS_DIR = join(PROJECT_ROOT, '..', 'shared', 'conformance', 'specs');
