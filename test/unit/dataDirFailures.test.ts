/** The one-line messages of the embedded database's file failures, from the errors PGlite, PostgreSQL and Node raise. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeDataDirFailure } from '../../src/db/dataDirFailures.js';
import { describeFailure } from '../../src/cli/failure.js';
import { configWith } from '../../src/config.js';

const DIR = '/srv/lqs/data';
/** PGlite's file errors: Emscripten's ErrnoError, a WASI errno and no message. */
const errno = (n: number) => Object.assign(new Error(), { name: 'ErrnoError', errno: n, message: undefined });
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('data directory failures', () => {
  it('names a full disk, from PGlite (ENOSPC, EDQUOT) or PostgreSQL (53100), with the directory and the fix', () => {
    const full = `no space left for the data directory ${DIR} (db.dataDir, LQS_DB_DATADIR): the disk or quota is full (ENOSPC); free space there (\`df -h ${DIR}\`) or choose another directory`;
    assert.equal(describeDataDirFailure(errno(51), DIR), full);
    assert.equal(
      describeDataDirFailure(pgError('53100', 'could not extend file "base/5/16720": No space left on device'), DIR),
      full.replace(': the disk', ' (base/5/16720): the disk'),
    );
    assert.match(describeDataDirFailure(errno(19), DIR)!, /quota is full \(EDQUOT\)/);
  });

  it('names permissions, from PGlite, PostgreSQL or Node, and a read-only file system', () => {
    const uid = process.getuid?.() ?? '?';
    const denied = `the data directory ${DIR} (db.dataDir, LQS_DB_DATADIR) cannot be written by this user (uid ${uid}): permission denied`;
    assert.match(describeDataDirFailure(errno(2), DIR)!, new RegExp(`^${escapeRegExp(denied)}; give it`));
    assert.match(
      describeDataDirFailure(pgError('42501', 'could not create file "base/5/16720_fsm": Permission denied'), DIR)!,
      new RegExp(`^${escapeRegExp(denied)} on base/5/16720_fsm; give it`),
    );
    const mkdir = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'mkdir', path: DIR });
    assert.match(describeDataDirFailure(mkdir, DIR)!, new RegExp(`^${escapeRegExp(denied)}; give it`));
    assert.equal(
      describeDataDirFailure(errno(69), DIR),
      `the data directory ${DIR} (db.dataDir, LQS_DB_DATADIR) is on a read-only file system; choose a writable directory`,
    );
  });

  it('names a damaged directory', () => {
    for (const [err, reason] of [
      [new Error('PGlite failed to initialize properly'), 'PGlite failed to initialize properly'],
      [
        Object.assign(new Error('Aborted(). Build with -sASSERTIONS for more info.'), { name: 'RuntimeError' }),
        'the embedded PostgreSQL aborted',
      ],
      [pgError('XX001', 'invalid page in block 0 of relation "base/5/16720"'), 'invalid page in block 0 of relation "base/5/16720"'],
    ] as const) {
      assert.equal(
        describeDataDirFailure(err, DIR),
        `the data directory ${DIR} (db.dataDir, LQS_DB_DATADIR) is damaged or not a data directory of this PGlite version (${reason}); restore it from a backup, or move it aside to start with a new, empty one`,
      );
    }
  });

  it("leaves alone what is not the data directory's: a listener's error, another file, a role's missing privilege", () => {
    assert.equal(describeDataDirFailure(Object.assign(new Error('listen EACCES'), { code: 'EACCES', syscall: 'listen' }), DIR), null);
    assert.equal(describeDataDirFailure(Object.assign(new Error('EACCES'), { code: 'EACCES', path: '/etc/lqs/users' }), DIR), null);
    assert.equal(describeDataDirFailure(pgError('42501', 'permission denied for table entity'), DIR), null);
    assert.equal(describeDataDirFailure(pgError('3D000', 'database "x" does not exist'), DIR), null);
  });

  it('is what the command line says over the embedded database, and only there', () => {
    const embedded = configWith({ db: { dataDir: DIR } });
    assert.match(describeFailure(errno(51), embedded), /^no space left for the data directory/);
    assert.doesNotMatch(describeFailure(errno(51), configWith({ db: { dataDir: 'memory' } })), /data directory/);
    assert.doesNotMatch(
      describeFailure(pgError('XX001', 'invalid page'), configWith({ db: { url: 'postgres://h/db' } })),
      /data directory/,
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
