/** The app over a private PostgreSQL server, for the fault tests: they stop it, kill its backends and lock its rows. */
import { Harness } from '../../tools/testApp/harness.js';
import { createPrivatePostgres, type PrivatePostgres } from './privatePostgres.js';

/** Five blocks: enough for the routes the fault tests drive. */
export const FAULT_BLOCKS = {
  recordFiles: Array.from({ length: 5 }, (_, i) => ({ index: i, consensus_end: 1000 + i, hash: String(i).repeat(96) })),
};

export interface FaultHarness {
  server: PrivatePostgres;
  harness: Harness;
  /** the harness's database on the private server, for a second client (a killer, a locker) */
  databaseUrl: string;
}

export async function openFaultHarness(pool: {
  size: number;
  statementTimeoutMs: number;
  connectionTimeoutMs: number;
}): Promise<FaultHarness> {
  const server = await createPrivatePostgres();
  const harness = await Harness.open({ backend: 'postgres', adminUrl: server.adminUrl, pool });
  await harness.prepare(FAULT_BLOCKS);
  const [{ current_database: name }] = (await harness.db.query<{ current_database: string }>('select current_database()')) as [
    { current_database: string },
  ];
  return { server, harness, databaseUrl: server.adminUrl.replace(/\/postgres$/, '/' + name) };
}
