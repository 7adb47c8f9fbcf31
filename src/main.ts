#!/usr/bin/env node
/**
 * The service's command line (commander): serve (default) | config | migrate | indexes | ingest | demo load |
 * admin hash-password, each with its own --help. The tools (generate, conformance, fixtures load)
 * have their own, tools/main.ts.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { refuseUnknown, runCommandLine } from './cli/commandLine.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const CONFIGURATION = `
Configuration: defaults, then the reference's CONFIG_PATH/application.yml, LQS_CONFIG_FILE (JSON or
YAML), HIERO_MIRROR_* variables, then LQS_* variables, DATABASE_URL (PostgreSQL; unset: embedded
PGlite in LQS_DB_DATADIR, default ./data, "memory" for none) and PORT.`;

/** Exit code of a command that ran to its end (serve keeps running and sets none). */
let exitCode: number | undefined;

/**
 * Runs a command's work on the configured database, with `settings` of `db` changed for it, closes
 * the database after, and marks the command done.
 */
async function onConfiguredDatabase(settings: Partial<Config['db']>, work: (db: Db, config: Config) => Promise<void>): Promise<void> {
  const { configWith, loadConfig } = await import('./config.js');
  const { openDatabase } = await import('./db/open.js');
  const config = configWith({ db: settings }, loadConfig());
  const db = await openDatabase(config);
  try {
    await work(db, config);
  } finally {
    await db.close();
  }
  exitCode = 0;
}

/** Prints the effective configuration; `commandLine` maps the settings an option changed to the option. */
async function printConfig(format: 'yaml' | 'json', commandLine: Record<string, string>): Promise<void> {
  const { loadConfigWithOrigins } = await import('./config.js');
  const { effectiveSettings, formatSettings } = await import('./cli/printConfig.js');
  const loaded = loadConfigWithOrigins();
  const settings = effectiveSettings(loaded, commandLine);
  if (commandLine['db.migrate']) settings['db.migrate']!.value = false;
  process.stdout.write(formatSettings(settings, format));
  exitCode = 0;
}

interface IngestCommandOptions {
  once?: boolean;
  addressBook?: string;
  network?: string;
  trust?: string;
  balances?: boolean;
  errata?: string;
  s3Region?: string;
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
  requesterPays?: boolean;
  anonymous?: boolean;
  gcsProject?: string;
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
    .option('--print-config', 'print the effective configuration (as `config` does, with this command line) and exit')
    .action(async (options: { migrate: boolean; printConfig?: boolean }) => {
      if (options.printConfig) {
        await printConfig('yaml', options.migrate ? {} : { 'db.migrate': '--no-migrate' });
        return;
      }
      // nothing is open yet while the server's modules load: a signal then ends the process with 0
      const early = () => process.exit(0);
      process.once('SIGTERM', early).once('SIGINT', early);
      // the configuration before the server's modules: a bad one is reported without loading them
      const { loadConfig } = await import('./config.js');
      const loaded = loadConfig();
      const { serve } = await import('./server.js');
      process.off('SIGTERM', early).off('SIGINT', early);
      await serve({ migrate: options.migrate, loaded });
    });

  cli
    .command('config')
    .description('print the effective configuration: every setting, its value (secrets masked) and where it came from')
    .option('--json', 'JSON instead of YAML')
    .action(async (options: { json?: boolean }) => {
      await printConfig(options.json ? 'json' : 'yaml', {});
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
      const { addOptionalIndexes, indexesNeedOwner } = await import('./db/optionalIndexes.js');
      const { UserError } = await import('./userError.js');
      // building an index on a large table takes longer than any statement of the API, and waits for the transactions under way
      await onConfiguredDatabase({ migrate: false, statementTimeoutMs: 0, lockTimeoutMs: 0 }, async (db) => {
        try {
          await addOptionalIndexes(db, ({ name, table, outcome }) => console.log(`${outcome.padEnd(8)} ${name} on ${table}`));
        } catch (err) {
          if ((err as { code?: string }).code !== '42501') throw err;
          const [{ role }] = (await db.query<{ role: string }>('select current_user as role')) as [{ role: string }];
          throw new UserError(indexesNeedOwner(role, (err as Error).message));
        }
      });
    });

  cli
    .command('ingest')
    .description('verify stream files (record streams, wrapped record blocks, blocks) and write them into the configured database')
    .argument('<source>', "a folder laid out as the network's buckets are, or s3://bucket/prefix (see Ingestion in the README)")
    .option('--once', 'ingest what is there, then exit (without it: keep following the source)')
    .option('--address-book <file>', 'the NodeAddressBook file whose keys verify the signatures')
    .option('--network <name>', 'use the bundled address book of this network (mainnet, testnet, previewnet, demo)')
    .option('--trust <number:hash>', 'a block whose hash is trusted: native block streams start at it or right after it')
    .option('--balances', "also the account balance files of the source's accountBalances/ (the first: the starting balances)")
    .option(
      '--errata <dir>',
      "mainnet's errata: a folder laid out as the importer's errata/mainnet (balance-offsets.txt, missingtransactions/)",
    )
    .option('--s3-region <region>', "an s3:// source's region (default: the AWS chain's, else us-east-1)")
    .option('--s3-endpoint <url>', 'an S3-compatible endpoint instead of AWS (https://storage.googleapis.com for GCS)')
    .option('--s3-force-path-style', 'address objects as endpoint/bucket/key (local S3-compatible servers)')
    .option('--requester-pays', "pay for the requests to a requester-pays bucket (the network's are)")
    .option('--anonymous', 'unsigned requests when the AWS credential chain finds no credentials (public buckets)')
    .option('--gcs-project <id>', 'the Google Cloud project a GCS requester-pays bucket bills')
    .action(async (source: string, options: IngestCommandOptions) => {
      const { runIngestCommand } = await import('./ingest/cli.js');
      const { ingestSummary } = await import('./ingest/progressLine.js');
      const { missingErrataWarning, resolveIngestion } = await import('./ingest/setup.js');
      const { configWith, loadConfig } = await import('./config.js');
      const configured = loadConfig().ingest;
      const s3 = configured.s3;
      // the options over the settings, validated as the settings are (the endpoint an origin)
      const settings = configWith({
        ingest: {
          ...configured,
          source,
          addressBook: options.addressBook ?? configured.addressBook,
          network: options.network ?? configured.network,
          trust: options.trust ?? configured.trust,
          balances: options.balances ?? configured.balances,
          errata: options.errata ?? configured.errata,
          s3: {
            region: options.s3Region ?? s3.region,
            endpoint: options.s3Endpoint ?? s3.endpoint,
            forcePathStyle: options.s3ForcePathStyle ?? s3.forcePathStyle,
            requesterPays: options.requesterPays ?? s3.requesterPays,
            anonymous: options.anonymous ?? s3.anonymous,
            gcsProject: options.gcsProject ?? s3.gcsProject,
          },
        },
      }).ingest;
      // the source (reachable), book, checkpoint and errata are checked before the database is opened
      const resolved = await resolveIngestion(settings, true);
      const warning = missingErrataWarning(settings);
      if (warning) process.stderr.write(`warning: ${warning}\n`);
      try {
        await onConfiguredDatabase({ migrate: false }, async (db, config) => {
          console.log(ingestSummary(await runIngestCommand(db, config, resolved, options.once === true)));
        });
      } finally {
        await resolved.source.close();
      }
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

  return refuseUnknown(cli);
}

// no command at all: serve (`lqs bogus` is still an unknown command)
const argv = process.argv.slice(2);
await runCommandLine(program(), argv.length === 0 ? ['serve'] : argv, () => exitCode);
