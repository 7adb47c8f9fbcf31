/**
 * The embedded database's file failures as one line naming the cause, the data directory and the
 * fix: a full disk, a directory this user may not write (checked before opening, as PostgreSQL's
 * postmaster checks its data directory's owner and mode), a damaged directory. PGlite reports
 * file errors as Emscripten's (`ErrnoError` with a WASI errno number and no message) and a data
 * directory it cannot read as "failed to initialize" or a WebAssembly abort.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Emscripten's errno numbers of the file errors named here. */
const EMSCRIPTEN_ERRNO: Record<number, string> = { 2: 'EACCES', 19: 'EDQUOT', 29: 'EIO', 51: 'ENOSPC', 63: 'EPERM', 69: 'EROFS' };

/** SQLSTATEs of PostgreSQL's data corruption and file errors. */
const DAMAGE_CODES = new Set(['XX001', 'XX002', '58030', '58P01']);

const SETTING = '(db.dataDir, LQS_DB_DATADIR)';

interface FileError {
  name?: string;
  message?: string;
  code?: string;
  errno?: number;
  path?: string;
  syscall?: string;
}

/** The Node or Emscripten error code of `err` (`ENOSPC`, `EACCES`, …), or undefined; PostgreSQL's own file errors count too. */
function fileErrorCode(err: FileError): string | undefined {
  if (err.name === 'ErrnoError' && typeof err.errno === 'number') return EMSCRIPTEN_ERRNO[err.errno] ?? `errno ${err.errno}`;
  // PostgreSQL's: disk_full, and "could not create file "base/5/16720_fsm": Permission denied" (42501)
  if (err.code === '53100') return 'ENOSPC';
  if (err.code === '42501' && /could not \w+ (file|directory) .*Permission denied/.test(String(err.message))) return 'EACCES';
  return typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code) ? err.code : undefined;
}

const uid = () => process.getuid?.();

/**
 * The line for a failure of the embedded database in `dataDir`, or null when `err` is not one of
 * the data directory's.
 */
export function describeDataDirFailure(err: unknown, dataDir: string): string | null {
  const e = (err ?? {}) as FileError;
  const dir = resolve(dataDir);
  const code = fileErrorCode(e);
  // a Node error about another file (a config file, a users file) is not the data directory's
  if (e.path !== undefined && !resolve(e.path).startsWith(dir) && !dir.startsWith(resolve(e.path))) return null;
  const file = e.path ?? /file "([^"]+)"/.exec(String(e.message ?? ''))?.[1];
  const where = file !== undefined && resolve(dir, file) !== dir ? ` (${file})` : '';
  // a Node error without a path (a listener's, a socket's) is not about the data directory
  const ours = e.name === 'ErrnoError' || e.path !== undefined || (code !== undefined && /^[0-9A-Z]{5}$/.test(String(e.code)));
  switch (ours ? code : undefined) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left for the data directory ${dir} ${SETTING}${where}: the disk or quota is full (${code}); free space there (\`df -h ${dir}\`) or choose another directory`;
    case 'EACCES':
    case 'EPERM':
      return `the data directory ${dir} ${SETTING} cannot be written by this user (uid ${uid() ?? '?'}): permission denied${where && ` on ${where.slice(2, -1)}`}; give it (and its parent, which holds its lock) to this user (\`chown -R\`) or choose another directory`;
    case 'EROFS':
      return `the data directory ${dir} ${SETTING} is on a read-only file system${where}; choose a writable directory`;
    case 'EIO':
      return `reading or writing the data directory ${dir} ${SETTING} failed with an I/O error${where}; check the disk, then restore the directory from a backup if it is damaged`;
  }
  const message = String(e.message ?? '');
  if (
    DAMAGE_CODES.has(String(e.code)) ||
    /PGlite failed to initialize/.test(message) ||
    (e.name === 'RuntimeError' && /Aborted/.test(message))
  ) {
    const reason = message.split('\n')[0]!.replace(/^Aborted\(\).*/, 'the embedded PostgreSQL aborted');
    return `the data directory ${dir} ${SETTING} is damaged or not a data directory of this PGlite version (${reason}); restore it from a backup, or move it aside to start with a new, empty one`;
  }
  return null;
}

/**
 * Throws the line of a data directory this user may not use, before PGlite meets it: one owned by
 * another user (as PostgreSQL refuses it) or without read, write and search permission. A
 * directory that does not exist yet is left to be created.
 */
export function checkDataDirAccess(dataDir: string, fail: (line: string) => Error): void {
  const dir = resolve(dataDir);
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(dir);
  } catch (err) {
    if ((err as FileError).code === 'ENOENT') return;
    throw err;
  }
  if (!stats.isDirectory()) throw fail(`the data directory ${dir} ${SETTING} is not a directory; choose a directory`);
  const me = uid();
  if (me !== undefined && me !== 0 && stats.uid !== me) {
    throw fail(
      `the data directory ${dir} ${SETTING} belongs to uid ${stats.uid}, not to this user (uid ${me}); run the service as its owner, or give it to this user (\`chown -R ${me} ${dir}\`)`,
    );
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    throw fail(
      `the data directory ${dir} ${SETTING} cannot be written by this user (uid ${me ?? '?'}): permission denied; allow it (\`chmod u+rwx ${dir}\`) or choose another directory`,
    );
  }
}
