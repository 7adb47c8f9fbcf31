/**
 * What every command line of the project shares (commander): each (sub)command refuses unknown
 * options and unexpected arguments, and every failure ends as one line on stderr and a non-zero
 * exit (2 for a wrong command line, 1 otherwise); the stack follows only at LQS_LOG_LEVEL=debug or
 * silly.
 */
import cluster from 'node:cluster';
import { type Command, CommanderError } from 'commander';
import type { Config } from '../config.js';
import { describeFailure } from './failure.js';

/** Makes `command` and its subcommands refuse what they do not know and report through exitOverride. */
export function refuseUnknown(command: Command): Command {
  command.exitOverride().showHelpAfterError('(add --help for usage)').allowExcessArguments(false).allowUnknownOption(false);
  command.configureOutput({ outputError: (text, write) => write(text) });
  for (const sub of command.commands) refuseUnknown(sub);
  return command;
}

/** The configuration the failure happened under, for naming the database, where it came from, and ports (none if it cannot load). */
async function configForMessages(env: NodeJS.ProcessEnv): Promise<{ config?: Config; dbOrigin?: string }> {
  try {
    const { loadConfigWithOrigins } = await import('../config.js');
    // its warnings were printed when the command loaded it
    const { config, origins } = loadConfigWithOrigins(env, env.LQS_CONFIG_FILE, () => {});
    return { config, dbOrigin: origins.get('db.url') };
  } catch {
    return {};
  }
}

/** The one line a command ends with when `err` stops it, under the configuration of `env`. */
export async function failureLine(err: unknown, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { config, dbOrigin } = await configForMessages(env);
  return `error: ${describeFailure(err, config, dbOrigin)}`;
}

function wantsStacks(): boolean {
  const level = process.env.LQS_LOG_LEVEL;
  return level === 'debug' || level === 'silly' || level === 'trace';
}

/**
 * A reader that closes its end of the pipe early (`lqs --help | grep -q serve`, `| head -1`) leaves
 * the output nowhere to go: the rest is dropped and the command runs on to its own exit code,
 * rather than an unhandled EPIPE ending it with 1 and a stack. Other write errors stay fatal.
 */
function dropOutputToClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}

/**
 * Parses `argv` with `cli` and runs its action; `exitCode` is read after it (undefined for a command
 * that keeps running, such as serve).
 */
export async function runCommandLine(cli: Command, argv: string[], exitCode: () => number | undefined): Promise<void> {
  dropOutputToClosedPipes();
  try {
    await cli.parseAsync(argv, { from: 'user' });
    const code = exitCode();
    if (code !== undefined) process.exitCode = code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version exit 0; a wrong command line 2 (commander has printed the message)
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`${await failureLine(err)}\n`);
    if (wantsStacks()) process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
    // a worker of `serve` (server.workers): its channel to the primary would keep it running
    if (cluster.isWorker) process.exit();
  }
}
