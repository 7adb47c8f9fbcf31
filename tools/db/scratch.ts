import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { UserError } from '../../src/userError.js';

/**
 * A throw-away database on a PostgreSQL server, for tests and conformance runs: they truncate and
 * reload tables freely, so they never touch a database they did not create.
 */
export interface ScratchDatabase {
  url: string;
  /** the database's name */
  name: string;
  drop(): Promise<void>;
}

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The production schema of a mirror node database (v1), kept beside the project, never copied into it. */
export const MIRROR_SCHEMA_FILE = join(PROJECT_ROOT, '..', 'shared', 'mirror-schema', 'mirror-node-v1.126.0.sql');

/**
 * Which schema a scratch database gets: the project's own migrations, or the mirror node's schema
 * (the target an operator points the service at), loaded from `MIRROR_SCHEMA_FILE`.
 */
export type SchemaKind = 'project' | 'mirror';

export function schemaKindOf(text: string | undefined): SchemaKind {
  if (text === undefined || text === '' || text === 'project') return 'project';
  if (text === 'mirror') return 'mirror';
  throw new Error(`unknown schema "${text}" (project or mirror)`);
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}

async function onServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createScratchDatabase(adminUrl = DEFAULT_ADMIN_URL, prefix = 'lqs_scratch'): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(adminUrl, (admin) => admin.query(`create database ${name}`));
  return scratchDatabase(adminUrl, name);
}

/** A database name that needs no quoting: lower-case letters, digits and underscores. */
const PLAIN_DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Names go into CREATE and DROP DATABASE as they are: only plain ones. */
function requirePlainName(name: string): void {
  if (!PLAIN_DATABASE_NAME.test(name)) throw new Error(`${JSON.stringify(name)} is not a plain database name (a-z, 0-9, _)`);
}

/**
 * A new database of exactly this name, for a command that keeps it for the next one (`roundtrip
 * --keep`): one of that name already there is refused, never replaced, so that no one's database is dropped.
 */
export async function createNamedDatabase(adminUrl: string, name: string): Promise<ScratchDatabase> {
  requirePlainName(name);
  await onServer(adminUrl, async (admin) => {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) throw new UserError(`database ${name} already exists: drop it (dropdb ${name}) or choose another prefix`);
    await admin.query(`create database ${name}`);
  });
  return scratchDatabase(adminUrl, name);
}

function scratchDatabase(adminUrl: string, name: string): ScratchDatabase {
  return { url: withDatabase(adminUrl, name), name, drop: () => dropDatabase(adminUrl, name) };
}

/** Drops the database `name` (a plain name) on the server of `adminUrl`, closing its connections. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  requirePlainName(name);
  await onServer(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
}

/** Creates the mirror node's schema in an empty database, as the mirror node's migrations leave it. */
export async function loadMirrorSchema(url: string, file = MIRROR_SCHEMA_FILE): Promise<void> {
  const sql = readFileSync(file, 'utf8');
  await onServer(url, (client) => client.query(sql));
}

export interface ReaderRole {
  /** the database's URL with the role as its user */
  url: string;
  /** drops the role; call after the database is dropped */
  drop(): Promise<void>;
}

/** A login role that can only read the tables of `scratch` (as an operator runs the service). */
export async function createReaderRole(scratch: ScratchDatabase, adminUrl = DEFAULT_ADMIN_URL): Promise<ReaderRole> {
  const role = `lqs_reader_${randomBytes(5).toString('hex')}`;
  await onServer(adminUrl, (admin) => admin.query(`create role ${role} login`));
  await onServer(scratch.url, (owner) =>
    owner.query(`grant connect on database ${scratch.name} to ${role};
      grant usage on schema public to ${role};
      grant select on all tables in schema public to ${role};`),
  );
  const url = new URL(scratch.url);
  url.username = role;
  return {
    url: url.toString(),
    drop: () => onServer(adminUrl, (admin) => admin.query(`drop role if exists ${role}`)).then(() => undefined),
  };
}
