/** Runs spec folders through the HTTP layer and reports per folder, ending with `N passed, M failed`. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compare } from './compare.js';
import { startPgBouncer, type PoolMode } from '../db/pgbouncer.js';
import { DEFAULT_ADMIN_URL, type SchemaKind } from '../db/scratch.js';
import { Harness, REFERENCE_TEST_CONFIG, type Backend } from '../testApp/harness.js';
import { findSpecFiles, loadCases, type ConformanceCase } from './spec.js';

export interface RunOptions {
  dirs: string[];
  backend: Backend;
  /** the private database's schema (postgres backend) */
  schema?: SchemaKind;
  json?: string;
  /** only cases whose name contains this text */
  filter?: string;
  quiet?: boolean;
  /**
   * Serve the cases through a private PgBouncer in this pool mode (postgres backend), with its
   * default settings; in transaction mode the service runs with db.preparedStatements false.
   */
  pgbouncer?: PoolMode;
  out?: (line: string) => void;
}

export interface CaseResult {
  name: string;
  group: string;
  passed: boolean;
  problems: string[];
}

export interface RunSummary {
  backend: Backend;
  schema: SchemaKind;
  passed: number;
  failed: number;
  groups: Record<string, { passed: number; failed: number }>;
  results: CaseResult[];
}

async function runCase(harness: Harness, testCase: ConformanceCase): Promise<string[]> {
  try {
    await harness.prepare(testCase.setup, ...testCase.config);
  } catch (err) {
    return [`setup failed: ${err instanceof Error ? err.message : String(err)}`];
  }
  const response = await harness.app.inject({ method: 'GET', url: testCase.url, headers: testCase.requestHeaders });
  return compare(testCase, { status: response.statusCode, headers: response.headers, body: response.body });
}

export async function runConformance(options: RunOptions): Promise<RunSummary> {
  const out = options.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const cases: ConformanceCase[] = [];
  for (const dir of options.dirs) {
    const root = resolve(dir);
    for (const file of findSpecFiles(root)) cases.push(...loadCases(file, root));
  }
  const selected = options.filter ? cases.filter((c) => c.name.includes(options.filter!)) : cases;

  const schema = options.schema ?? 'project';
  const bouncer = options.pgbouncer ? await startPgBouncer(process.env.LQS_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL, options.pgbouncer) : null;
  let harness: Harness;
  try {
    harness = await Harness.open({
      backend: options.backend,
      schema,
      baseConfig: REFERENCE_TEST_CONFIG,
      appUrl: bouncer ? (url) => bouncer.through(url) : undefined,
      pool: { preparedStatements: options.pgbouncer !== 'transaction' },
    });
  } catch (err) {
    await bouncer?.stop();
    throw err;
  }
  const summary: RunSummary = { backend: options.backend, schema, passed: 0, failed: 0, groups: {}, results: [] };
  try {
    for (const testCase of selected) {
      const problems = await runCase(harness, testCase);
      const passed = problems.length === 0;
      summary.groups[testCase.group] ??= { passed: 0, failed: 0 };
      const group = summary.groups[testCase.group]!;
      if (passed) {
        summary.passed++;
        group.passed++;
      } else {
        summary.failed++;
        group.failed++;
        if (!options.quiet) out(`FAIL ${testCase.name}\n  ${problems.join('\n  ').replace(/\n/g, '\n  ')}`);
      }
      summary.results.push({ name: testCase.name, group: testCase.group, passed, problems });
    }
  } finally {
    await harness.close();
    await bouncer?.stop();
  }

  out('');
  const through = options.pgbouncer ? `, through PgBouncer in ${options.pgbouncer} mode` : '';
  out(`conformance on ${options.backend}${schema === 'mirror' ? ', mirror node schema, SELECT-only role' : ''}${through}`);
  const width = Math.max(6, ...Object.keys(summary.groups).map((g) => g.length));
  out(`${'folder'.padEnd(width)}  passed  failed`);
  for (const [group, counts] of Object.entries(summary.groups).sort()) {
    out(`${group.padEnd(width)}  ${String(counts.passed).padStart(6)}  ${String(counts.failed).padStart(6)}`);
  }
  out(`${summary.passed} passed, ${summary.failed} failed`);
  if (options.json) writeFileSync(options.json, JSON.stringify(summary, null, 2));
  return summary;
}
