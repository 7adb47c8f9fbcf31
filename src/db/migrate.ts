import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.js';
import { MIGRATIONS_DIR } from '../paths.js';
import { UserError } from '../userError.js';
import { isMirrorNodeDatabase } from './schemaRequirements.js';

const MIRROR_NODE_DATABASE_ADVICE =
  'it is a mirror node database (its flyway_schema_history table is there), whose schema the mirror node owns: ' +
  'this service never migrates it. Serve it with `serve --no-migrate` (or LQS_DB_MIGRATE=false), as a role that can only SELECT; ' +
  '`lqs indexes` adds the optional indexes the service benefits from.';

/**
 * Applies the SQL files of `src/db/migrations` in name order, each once, recording them in
 * lqs_migration. Refuses a mirror node database before changing anything.
 */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  if (await isMirrorNodeDatabase(db)) throw new UserError(`Not migrating the database: ${MIRROR_NODE_DATABASE_ADVICE}`);
  await db.exec(`create table if not exists lqs_migration (
    name text primary key,
    applied_at timestamptz not null default now()
  )`);
  const applied = new Set((await db.query<{ name: string }>('select name from lqs_migration')).map((r) => r.name));
  const pending = readdirSync(dir)
    .filter((f) => f.endsWith('.sql') && !applied.has(f))
    .sort();
  for (const name of pending) {
    const sql = readFileSync(join(dir, name), 'utf8');
    await db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(7163254)`);
      const done = await tx.query('select 1 from lqs_migration where name = $1', [name]);
      if (done.length > 0) return;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('insert into lqs_migration (name) values ($1)', [name]);
    });
  }
  if (pending.length > 0) await db.refreshTypes();
  return pending;
}

/** Splits a migration into statements at top-level semicolons (dollar-quoted blocks stay whole). */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    const trimmed = line.trim();
    if (!inDollar && (trimmed === '' || trimmed.startsWith('--'))) continue;
    current += line + '\n';
    const dollars = (line.match(/\$\$/g) ?? []).length;
    if (dollars % 2 === 1) inDollar = !inDollar;
    if (!inDollar && trimmed.endsWith(';')) {
      out.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}
