import pg from 'pg';
import { randomBytes } from 'node:crypto';

/**
 * A throw-away database on a PostgreSQL server, for tests and conformance runs: they truncate and
 * reload tables freely, so they never touch a database they did not create.
 */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + database;
  return u.toString();
}

export async function createScratchDatabase(adminUrl = DEFAULT_ADMIN_URL, prefix = 'lqs_scratch'): Promise<ScratchDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
