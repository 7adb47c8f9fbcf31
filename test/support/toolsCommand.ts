/** The tools' command line (`node dist/tools/main.js …`) run as a user runs it: a child with PATH only, unless told. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TOOLS = fileURLToPath(new URL('../../tools/main.js', import.meta.url));

export interface ToolsRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runTools(args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<ToolsRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TOOLS, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
