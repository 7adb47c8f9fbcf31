#!/usr/bin/env node
/**
 * The command line (commander): serve (default) | migrate | fixtures load | conformance | generate |
 * demo load | admin hash-password, each with its own --help; unknown options and unexpected
 * arguments are refused. Every failure ends as one line on stderr and a non-zero exit (2 for a
 * wrong command line, 1 otherwise); the stack follows only at LQS_LOG_LEVEL=debug or silly.
 */
import cluster from 'node:cluster';
import { existsSync, readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_SPECS_DIR } from './paths.js';
import { describeFailure, UserError } from './cli/failure.js';
import { SCALE_NAMES, type ScaleName } from './generate/scales.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const CONFIGURATION = `
Configuration: defaults, then LQS_CONFIG_FILE (JSON or YAML), then LQS_* variables, DATABASE_URL
(PostgreSQL; unset: embedded PGlite in LQS_DB_DATADIR, default ./data, "memory" for none) and PORT.`;

/** Exit code of a command that ran to its end (serve keeps running and sets none). */
let exitCode: number | undefined;

function seedOption(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new InvalidArgumentError('an integer from 0 to 999999999.');
  return Number(text);
}

/**
 * Runs a command's work on the configured database, with `settings` of `db` changed for it, closes
 * the database after, and marks the command done.
 */
async function onConfiguredDatabase(settings: Partial<Config['db']>, work: (db: Db, config: Config) => Promise<void>): Promise<void> {
  const { loadConfig } = await import('./config.js');
  const { openDatabase } = await import('./db/open.js');
  const config = loadConfig();
  Object.assign(config.db, settings);
  const db = await openDatabase(config);
  try {
    await work(db, config);
  } finally {
    await db.close();
  }
  exitCode = 0;
}

function program(): Command {
  const cli = new Command('lqs')
    .description('Ledger Query Service: a read-only JSON API over Hiero mirror node data')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help (also after any command)')
    .addHelpCommand('help [command]', 'show help for a command')
    .addHelpText('after', CONFIGURATION)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });

  cli
    .command('serve')
    .description('serve the API and the admin listener (the default command)')
    .option('--no-migrate', 'do not create or update the schema (for a role that can only SELECT)')
    .action(async (options: { migrate: boolean }) => {
      // nothing is open yet while the server's modules load: a signal then ends the process with 0
      const early = () => process.exit(0);
      process.once('SIGTERM', early).once('SIGINT', early);
      const { serve } = await import('./server.js');
      process.off('SIGTERM', early).off('SIGINT', early);
      await serve({ migrate: options.migrate });
    });

  cli
    .command('migrate')
    .description('create or update the schema in the configured database, then exit (never a mirror node database)')
    .action(async () => {
      const { migrate } = await import('./db/migrate.js');
      await onConfiguredDatabase({ migrate: false }, async (db) => {
        const applied = await migrate(db);
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date');
      });
    });

  cli
    .command('indexes')
    .description("add the service's optional indexes to a mirror node database (CREATE INDEX CONCURRENTLY, idempotent)")
    .action(async () => {
      const { addOptionalIndexes } = await import('./db/optionalIndexes.js');
      // building an index on a large table takes longer than any statement of the API
      await onConfiguredDatabase({ migrate: false, statementTimeoutMs: 0 }, async (db) => {
        await addOptionalIndexes(db, ({ name, table, outcome }) => console.log(`${outcome.padEnd(8)} ${name} on ${table}`));
      });
    });

  const fixtures = cli.command('fixtures').description('load spec fixtures (see fixtures load --help)');
  fixtures
    .command('load')
    .description('load the `setup` of spec files into the configured database')
    .argument('<file...>', 'spec files (JSON)')
    .option('--reset', 'empty the tables first')
    .action(async (files: string[], options: { reset?: boolean }) => {
      const { loadFixtureFiles } = await import('./fixtures/files.js');
      await loadFixtureFiles(files, Boolean(options.reset));
      exitCode = 0;
    });

  cli
    .command('conformance')
    .description("run the reference's spec folders through the HTTP layer and compare the answers")
    .argument('[dir...]', `spec folders (default ${DEFAULT_SPECS_DIR})`)
    .addOption(new Option('--backend <backend>', 'database for the cases').choices(['pglite', 'postgres']).default('pglite'))
    .addOption(
      new Option('--schema <schema>', "the private database's schema: the project's, or the mirror node's read as a SELECT-only role (postgres only)")
        .choices(['project', 'mirror'])
        .default('project'),
    )
    .option('--json <file>', 'write the results as JSON')
    .option('--filter <text>', 'run only the cases whose file or URL contains TEXT')
    .option('--quiet', 'print only failures and the summary')
    .option('--report-only', 'exit 0 even with failures (see --require)')
    .option('--require <folder...>', 'with --report-only: folders that must still pass')
    .action(async (dirs: string[], options: { backend: 'pglite' | 'postgres'; schema: 'project' | 'mirror'; json?: string; filter?: string; quiet?: boolean; reportOnly?: boolean; require?: string[] }) => {
      const chosen = dirs.length > 0 ? dirs : existsSync(DEFAULT_SPECS_DIR) ? [DEFAULT_SPECS_DIR] : [];
      if (chosen.length === 0) throw new UserError(`no spec folder given and ${DEFAULT_SPECS_DIR} does not exist`);
      for (const dir of chosen) if (!existsSync(dir)) throw new UserError(`spec folder ${dir} does not exist`);
      if (options.schema === 'mirror' && options.backend !== 'postgres') throw new UserError('--schema mirror needs --backend postgres');
      const { runConformance } = await import('./conformance/runner.js');
      const summary = await runConformance({ dirs: chosen, backend: options.backend, schema: options.schema, json: options.json, filter: options.filter, quiet: options.quiet });
      if (options.reportOnly) {
        // with --require, failures in those folders still fail the run
        const failing = (options.require ?? []).filter((group) => (summary.groups[group]?.failed ?? 0) > 0 || !summary.groups[group]);
        if (failing.length > 0) console.log(`required folders with failures: ${failing.join(', ')}`);
        exitCode = failing.length > 0 ? 1 : 0;
      } else {
        exitCode = summary.failed > 0 ? 1 : 0;
      }
    });

  cli
    .command('generate')
    .description('write a synthetic ledger into the configured database')
    .addOption(new Option('--scale <scale>', 'dataset size').choices(SCALE_NAMES).makeOptionMandatory())
    .option('--seed <n>', 'random seed, an integer from 0 to 999999999', seedOption, 1)
    .option('--force', 'generate even if the database already holds data')
    .option('--no-progress', 'print no progress bar')
    .action(async (options: { scale: ScaleName; seed: number; force?: boolean; progress: boolean }) => {
      const { generateCommand } = await import('./generate/cli.js');
      exitCode = await generateCommand({ scale: options.scale, seed: options.seed, force: Boolean(options.force), progress: options.progress });
    });

  const demo = cli.command('demo').description('the demo ledger (see demo load --help)');
  demo
    .command('load')
    .description('load the demo ledger into the configured database (nothing to do when it is there)')
    .action(async () => {
      const { loadDemoLedger, isDemoLedger } = await import('./demo/ledger.js');
      await onConfiguredDatabase({}, async (db, config) => {
        if (await isDemoLedger(db, config)) {
          console.log('the demo ledger is already loaded; nothing to do');
        } else {
          await loadDemoLedger(db, config);
          console.log('demo ledger loaded');
        }
      });
    });

  const admin = cli.command('admin').description('admin listener tools (see admin hash-password --help)');
  admin
    .command('hash-password')
    .description('read a password on stdin and print an admin.users entry with its scrypt hash')
    .argument('[user]', 'the user name of the entry (without it, only the hash)')
    .action(async (user: string | undefined) => {
      const { hashPasswordCommand } = await import('./admin/cli.js');
      console.log(await hashPasswordCommand(user));
      exitCode = 0;
    });

  // every (sub)command refuses what it does not know and reports through exitOverride
  const configure = (command: Command) => {
    command.exitOverride().showHelpAfterError('(add --help for usage)').allowExcessArguments(false).allowUnknownOption(false);
    command.configureOutput({ outputError: (text, write) => write(text) });
    for (const sub of command.commands) configure(sub);
  };
  configure(cli);
  return cli;
}

/** The configuration the failure happened under, for naming the database and ports (none if it cannot load). */
async function configForMessages(): Promise<Config | undefined> {
  try {
    const { loadConfig } = await import('./config.js');
    return loadConfig();
  } catch {
    return undefined;
  }
}

function wantsStacks(): boolean {
  const level = process.env.LQS_LOG_LEVEL;
  return level === 'debug' || level === 'silly' || level === 'trace';
}

async function main(argv: string[]): Promise<void> {
  try {
    // no command at all: serve (`lqs bogus` is still an unknown command)
    await program().parseAsync(argv.length === 0 ? ['serve'] : argv, { from: 'user' });
    if (exitCode !== undefined) process.exitCode = exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit 0; a wrong command line 2 (commander has printed the message)
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`error: ${describeFailure(err, await configForMessages())}\n`);
    if (wantsStacks()) process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
    // a worker of `serve` (server.workers): its channel to the primary would keep it running
    if (cluster.isWorker) process.exit();
  }
}

await main(process.argv.slice(2));
