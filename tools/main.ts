#!/usr/bin/env node
/**
 * The tools' command line (commander): generate | stream | roundtrip | conformance | fixtures load | bench | soak | readme,
 * each with its own --help (`npm run generate -- …`, `npm run conformance -- …`, `npm run bench -- …`).
 * The service's commands are in src/main.ts.
 */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { refuseUnknown, runCommandLine } from '../src/cli/commandLine.js';
import { UserError } from '../src/userError.js';
import { SCALE_NAMES, type ScaleName } from './generate/scales.js';
import type { StreamCommandOptions } from './stream/cli.js';
import { DEFAULT_SPECS_DIR } from './paths.js';

const CONFIGURATION = `
Configuration: as the service's (lqs --help): LQS_CONFIG_FILE, LQS_* variables, DATABASE_URL
(PostgreSQL; unset: embedded PGlite in LQS_DB_DATADIR, default ./data) and PORT.`;

/** Exit code of the command that ran. */
let exitCode: number | undefined;

function seedOption(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new InvalidArgumentError('an integer from 0 to 999999999.');
  return Number(text);
}

const ROUNDTRIP_SECTIONS = ['transfers', 'crypto', 'hollow', 'tokens', 'nfts'] as const;
const ROUNDTRIP_SIZES = ['ci', 'large', 'bench'];

function sectionList(text: string): (typeof ROUNDTRIP_SECTIONS)[number][] {
  const names = text.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!(ROUNDTRIP_SECTIONS as readonly string[]).includes(name))
      throw new InvalidArgumentError(`sections are ${ROUNDTRIP_SECTIONS.join(', ')}; not ${JSON.stringify(name)}.`);
  }
  return names as (typeof ROUNDTRIP_SECTIONS)[number][];
}

function databasePrefix(text: string): string {
  // the two names add `_expected` / `_ingested`; PostgreSQL keeps 63 bytes of a name
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(text)) throw new InvalidArgumentError('lower-case letters, digits and _, at most 41.');
  return text;
}

function positiveInt(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new InvalidArgumentError('an integer from 1 to 999999999.');
  return Number(text);
}

function program(): Command {
  const cli = new Command('lqs-tools')
    .description(
      "Ledger Query Service tools: the synthetic ledger generator, the synthetic record stream, the conformance runner, fixture loading, the benchmark, the soak and the README's settings tables",
    )
    .helpOption('-h, --help', 'show help (also after any command)')
    .addHelpCommand('help [command]', 'show help for a command')
    .addHelpText('after', CONFIGURATION);

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
    .command('readme')
    .description("rewrite the README's tables of settings from the settings table (src/settings/table.ts)")
    .action(async () => {
      const { updateReadme } = await import('./readme/settingsTables.js');
      process.stdout.write(updateReadme() ? 'README.md: settings tables rewritten\n' : 'README.md: settings tables up to date\n');
      exitCode = 0;
    });

  cli
    .command('conformance')
    .description("run the reference's spec folders through the HTTP layer and compare the answers")
    .argument('[dir...]', `spec folders (default ${DEFAULT_SPECS_DIR})`)
    .addOption(new Option('--backend <backend>', 'database for the cases').choices(['pglite', 'postgres']).default('pglite'))
    .addOption(
      new Option(
        '--schema <schema>',
        "the private database's schema: the project's, or the mirror node's read as a SELECT-only role (postgres only)",
      )
        .choices(['project', 'mirror'])
        .default('project'),
    )
    .addOption(
      new Option('--pgbouncer <mode>', 'serve the cases through a private PgBouncer in this pool mode (postgres only)').choices([
        'session',
        'transaction',
      ]),
    )
    .option('--json <file>', 'write the results as JSON')
    .option('--filter <text>', 'run only the cases whose file or URL contains TEXT')
    .option('--quiet', 'print only failures and the summary')
    .option('--report-only', 'exit 0 even with failures (see --require)')
    .option('--require <folder...>', 'with --report-only: folders that must still pass')
    .action(
      async (
        dirs: string[],
        options: {
          backend: 'pglite' | 'postgres';
          schema: 'project' | 'mirror';
          pgbouncer?: 'session' | 'transaction';
          json?: string;
          filter?: string;
          quiet?: boolean;
          reportOnly?: boolean;
          require?: string[];
        },
      ) => {
        const chosen = dirs.length > 0 ? dirs : existsSync(DEFAULT_SPECS_DIR) ? [DEFAULT_SPECS_DIR] : [];
        if (chosen.length === 0) throw new UserError(`no spec folder given and ${DEFAULT_SPECS_DIR} does not exist`);
        for (const dir of chosen) if (!existsSync(dir)) throw new UserError(`spec folder ${dir} does not exist`);
        if (options.schema === 'mirror' && options.backend !== 'postgres') throw new UserError('--schema mirror needs --backend postgres');
        if (options.pgbouncer && options.backend !== 'postgres') throw new UserError('--pgbouncer needs --backend postgres');
        const { runConformance } = await import('./conformance/runner.js');
        const summary = await runConformance({
          dirs: chosen,
          backend: options.backend,
          schema: options.schema,
          pgbouncer: options.pgbouncer,
          json: options.json,
          filter: options.filter,
          quiet: options.quiet,
        });
        if (options.reportOnly) {
          // with --require, failures in those folders still fail the run
          const failing = (options.require ?? []).filter((group) => (summary.groups[group]?.failed ?? 0) > 0 || !summary.groups[group]);
          if (failing.length > 0) console.log(`required folders with failures: ${failing.join(', ')}`);
          exitCode = failing.length > 0 ? 1 : 0;
        } else {
          exitCode = summary.failed > 0 ? 1 : 0;
        }
      },
    );

  cli
    .command('generate')
    .description('write a synthetic ledger into the configured database')
    .addOption(new Option('--scale <scale>', 'dataset size').choices(SCALE_NAMES).makeOptionMandatory())
    .option('--seed <n>', 'random seed, an integer from 0 to 999999999', seedOption, 1)
    .option('--force', 'generate even if the database already holds data')
    .option('--no-progress', 'print no progress bar')
    .action(async (options: { scale: ScaleName; seed: number; force?: boolean; progress: boolean }) => {
      const { generateCommand } = await import('./generate/cli.js');
      exitCode = await generateCommand({
        scale: options.scale,
        seed: options.seed,
        force: Boolean(options.force),
        progress: options.progress,
      });
    });

  cli
    .command('stream')
    .description('write a synthetic signed record stream (v6 files, node signatures, address book) as a bucket folder')
    .argument('<out>', 'the folder to write (new or empty)')
    .option('--nodes <n>', 'nodes, each with its own RSA key, copy and signature of every file', positiveInt, 4)
    .option('--files <n>', 'record files, one per 2 s of consensus time', positiveInt, 10)
    .option('--records-per-file <n>', 'transactions per file', positiveInt, 1000)
    .option('--seed <n>', 'random seed, an integer from 0 to 999999999', seedOption, 1)
    .option('--start <time>', 'consensus time of the first file (ISO 8601)', '2026-01-01T00:00:00Z')
    .option('--first-block <n>', 'block number of the first file', positiveInt, 1)
    .option('--key-bits <n>', 'RSA modulus of the node keys', positiveInt, 3072)
    .addOption(
      new Option('--layout <layout>', 'bucket layout: recordstreams/record0.0.N or demo/0/<nodeId>/record')
        .choices(['account', 'node'])
        .default('account'),
    )
    .option('--ledger', 'first create the topics, the 5,000 accounts and 5 tokens the transactions use, then move tokens too')
    .action(async (out: string, options: StreamCommandOptions) => {
      const { streamCommand } = await import('./stream/cli.js');
      exitCode = await streamCommand(out, options);
    });

  cli
    .command('roundtrip')
    .description(
      'write the round-trip scenario as a signed record stream and as the rows the importer writes for it, ingest the stream into an empty database and compare the tables and the answers',
    )
    .addOption(new Option('--size <size>', 'scenario size').choices(ROUNDTRIP_SIZES).default('ci'))
    .addOption(
      new Option('--sections <list>', `comma-separated sections to play (${ROUNDTRIP_SECTIONS.join(', ')})`)
        .argParser(sectionList)
        .default([...ROUNDTRIP_SECTIONS], 'all'),
    )
    .addOption(
      new Option(
        '--compare <group>',
        'what to compare: the per-transaction tables and block answers, the state tables and account answers, or both',
      )
        .choices(['all', 'transactions', 'state'])
        .default('all'),
    )
    .option('--seed <n>', 'random seed, an integer from 0 to 999999999', seedOption, 1)
    .addOption(new Option('--backend <backend>', 'database of both sides').choices(['pglite', 'postgres']).default('pglite'))
    .option(
      '--keep',
      'keep both databases, named PREFIX_expected and PREFIX_ingested, and print their URLs (postgres only; for `bench pair`)',
    )
    .option('--prefix <name>', 'name prefix of the two databases (a-z, 0-9, _)', databasePrefix, 'lqs_roundtrip')
    .action(
      async (options: {
        size: 'ci' | 'large' | 'bench';
        sections: (typeof ROUNDTRIP_SECTIONS)[number][];
        compare: 'all' | 'transactions' | 'state';
        seed: number;
        backend: 'pglite' | 'postgres';
        keep?: boolean;
        prefix: string;
      }) => {
        if (options.keep && options.backend !== 'postgres')
          throw new UserError('--keep needs --backend postgres: a PGlite database lives in the process and ends with it');
        const { formatReport, runRoundTrip } = await import('./roundtrip/run.js');
        const report = await runRoundTrip({ ...options, databasePrefix: options.prefix, keep: Boolean(options.keep) });
        process.stdout.write(formatReport(options, report));
        exitCode = report.differences === 0 ? 0 : 1;
      },
    );

  refuseUnknown(cli);
  // the bench and the soak read their own options (node:util parseArgs; the bench prints its usage on
  // --help): commander passes their arguments through
  cli.enablePositionalOptions();
  const passThrough = (name: string, description: string, run: (args: string[]) => Promise<number>) =>
    cli
      .command(name)
      .description(description)
      .argument('[options...]')
      .helpOption(false)
      .passThroughOptions()
      .allowUnknownOption()
      .exitOverride()
      .action(async (args: string[]) => {
        exitCode = await run(args);
      });
  passThrough(
    'bench',
    'measure every endpoint on generated datasets, ingestion with `bench ingest`, the database client with `bench driver`, or the API on two databases of one ledger with `bench pair` (bench --help, bench ingest --help, bench driver --help, bench pair --help list the options)',
    async (args) => (await import('./bench/run.js')).runBench(args),
  );
  passThrough(
    'soak',
    'mixed traffic at high concurrency for a bounded time: [--scale S] [--backend B] [--seed N] [--seconds S] [--concurrency N]',
    async (args) => (await import('./bench/soak.js')).runSoak(args),
  );
  return cli;
}

await runCommandLine(program(), process.argv.slice(2), () => exitCode);
