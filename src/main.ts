#!/usr/bin/env node
/** The command line: serve (default) | migrate | fixtures load | conformance | generate | demo. */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_SPECS_DIR } from './paths.js';
import { UserFacingError } from './userError.js';

const USAGE = `usage: lqs <command> [options]

commands:
  serve                          serve the API (default); --no-migrate for a read-only role
  migrate                        create or update the schema and exit (never a mirror node database)
  indexes                        add the service's optional indexes to a mirror node database
                                 (CREATE INDEX CONCURRENTLY; idempotent)
  fixtures load FILE… [--reset]  load the setup of spec files into the configured database
  conformance [DIR…]             run spec folders [--backend pglite|postgres] [--schema project|mirror] [--json FILE]
                                 [--filter TEXT] [--quiet] [--report-only [--require FOLDER…]]
  generate --scale S [--seed N]  write a synthetic ledger (tiny|small|medium|large) into the configured
                                 database [--force] [--no-progress]
  demo load                      load the demo ledger into the configured database
  admin hash-password [USER]     read a password on stdin, print an admin.users entry with its scrypt hash

configuration: defaults, then LQS_CONFIG_FILE (JSON or YAML), then LQS_* variables,
DATABASE_URL (PostgreSQL; unset: embedded PGlite in LQS_DB_DATADIR, default ./data) and PORT.`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { 'no-migrate': { type: 'boolean' } } });
      // nothing is open yet while the server's modules load: a signal then ends the process with 0
      const early = () => process.exit(0);
      process.once('SIGTERM', early).once('SIGINT', early);
      const { serve } = await import('./server.js');
      process.off('SIGTERM', early).off('SIGINT', early);
      await serve({ migrate: !values['no-migrate'] });
      return -1;
    }
    case 'migrate': {
      const { loadConfig } = await import('./config.js');
      const { openDatabase } = await import('./db/open.js');
      const config = loadConfig();
      config.db.migrate = false;
      const db = await openDatabase(config);
      const { migrate } = await import('./db/migrate.js');
      const applied = await migrate(db).finally(() => db.close());
      console.log(applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date');
      return 0;
    }
    case 'indexes': {
      parseArgs({ args: rest, options: {} }); // no options: anything given is refused
      const { loadConfig } = await import('./config.js');
      const { openDatabase } = await import('./db/open.js');
      const { addOptionalIndexes } = await import('./db/optionalIndexes.js');
      const config = loadConfig();
      config.db.migrate = false;
      // building an index on a large table takes longer than any statement of the API
      config.db.statementTimeoutMs = 0;
      const db = await openDatabase(config);
      try {
        await addOptionalIndexes(db, ({ name, table, outcome }) => console.log(`${outcome.padEnd(8)} ${name} on ${table}`));
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'fixtures': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { reset: { type: 'boolean' } } });
      const [sub, ...files] = positionals;
      if (sub !== 'load' || files.length === 0) throw new UsageError('fixtures load FILE… [--reset]');
      const { loadFixtureFiles } = await import('./fixtures/files.js');
      await loadFixtureFiles(files, Boolean(values.reset));
      return 0;
    }
    case 'conformance': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          backend: { type: 'string', default: 'pglite' },
          schema: { type: 'string', default: 'project' },
          json: { type: 'string' },
          filter: { type: 'string' },
          'report-only': { type: 'boolean' },
          require: { type: 'string', multiple: true },
          quiet: { type: 'boolean' },
        },
      });
      if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend pglite|postgres');
      const dirs = positionals.length > 0 ? positionals : existsSync(DEFAULT_SPECS_DIR) ? [DEFAULT_SPECS_DIR] : [];
      if (dirs.length === 0) throw new UsageError(`no spec folder given and ${DEFAULT_SPECS_DIR} does not exist`);
      if (values.schema !== 'project' && values.schema !== 'mirror') throw new UsageError('--schema project|mirror');
      if (values.schema === 'mirror' && values.backend !== 'postgres') throw new UsageError('--schema mirror needs --backend postgres');
      const { runConformance } = await import('./conformance/runner.js');
      const summary = await runConformance({ dirs, backend: values.backend, schema: values.schema, json: values.json, filter: values.filter, quiet: values.quiet });
      if (values['report-only']) {
        // with --require, failures in those folders still fail the run
        const required = values.require ?? [];
        const failing = required.filter((group) => (summary.groups[group]?.failed ?? 0) > 0 || !summary.groups[group]);
        if (failing.length > 0) console.log(`required folders with failures: ${failing.join(', ')}`);
        return failing.length > 0 ? 1 : 0;
      }
      return summary.failed > 0 ? 1 : 0;
    }
    case 'generate': {
      const { generateCommand, GenerateUsageError } = await import('./generate/cli.js');
      try {
        return await generateCommand(rest);
      } catch (err) {
        if (err instanceof GenerateUsageError) throw new UsageError(err.message);
        throw err;
      }
    }
    case 'demo': {
      if (rest[0] !== 'load') throw new UsageError('demo load');
      const { loadConfig } = await import('./config.js');
      const { openDatabase } = await import('./db/open.js');
      const { loadDemoLedger } = await import('./demo/ledger.js');
      const config = loadConfig();
      const db = await openDatabase(config);
      await loadDemoLedger(db, config);
      await db.close();
      console.log('demo ledger loaded');
      return 0;
    }
    case 'admin': {
      const [sub, user, ...extra] = rest;
      if (sub !== 'hash-password' || extra.length > 0) throw new UsageError('admin hash-password [USER]');
      const { hashPasswordCommand } = await import('./admin/cli.js');
      console.log(await hashPasswordCommand(user));
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    case '--version':
      console.log(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
      return 0;
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof UserFacingError) {
      console.error(err.message);
      process.exitCode = 1;
    } else {
      console.error(err);
      process.exitCode = 1;
    }
  },
);
