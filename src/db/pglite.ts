import { PGlite, types } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import type { Db, Queryable, Row } from './db.js';
import { ownParsers } from './typeParsers.js';

// the third argument, an array type id, only picks the delimiter (`;` for box[]): 0 means a comma
const parsers = ownParsers((element) => (text) => types.arrayParser(text, element, 0));

function queryable(pg: Pick<PGlite, 'query'>): Queryable {
  return {
    async query<R = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await pg.query<R>(text, params as unknown[]);
      return result.rows;
    },
  };
}

/** The embedded database: PostgreSQL compiled to WASM, one connection, data in `dataDir` (memory when empty). */
export async function openPglite(dataDir: string): Promise<Db> {
  return (await openPgliteHandle(dataDir)).db;
}

/** Like openPglite, also returning the PGlite instance itself (bulk loads use its COPY from a blob). */
export async function openPgliteHandle(dataDir: string): Promise<{ db: Db; pg: PGlite }> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir || undefined, { parsers });
  return { db: pgliteDb(pg), pg };
}

function pgliteDb(pg: PGlite): Db {
  const q = queryable(pg);
  return {
    backend: 'pglite',
    query: q.query,
    async exec(sql) {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn(queryable(tx))),
    async ping() {
      await pg.query('select 1');
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
}
