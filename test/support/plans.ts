/** Query-plan checks: replay the queries a request ran under EXPLAIN and find sequential scans. */
import type { CapturedQuery } from '../../tools/testApp/harness.js';
import type { Db, Queryable } from '../../src/db/db.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  /** with ANALYZE: rows returned per loop, loops, and rows a filter dropped (over all loops) */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, out: PlanNode[]): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
}

type ExplainRow = { 'QUERY PLAN': unknown };

/** The nodes of an `explain (format json)` result (json on one backend, its text on the other). */
function nodesOf(rows: ExplainRow[]): PlanNode[] {
  const raw = rows[0]!['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return walk(plan[0]!.Plan, []);
}

export async function planNodes(db: Db, query: CapturedQuery): Promise<PlanNode[]> {
  return nodesOf(await db.query<ExplainRow>(`explain (format json) ${query.text}`, query.params));
}

/** The queries that read rows: an EXPLAIN the service runs for the planner's estimates reads none. */
const reading = (queries: readonly CapturedQuery[]) => queries.filter((q) => !/^\s*explain\b/i.test(q.text));

/** Tables among `large` that a plan of any of the queries reads with a sequential scan. */
export async function sequentialScans(db: Db, queries: readonly CapturedQuery[], large: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const query of reading(queries)) {
    for (const node of await planNodes(db, query)) {
      if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] && large.includes(node['Relation Name'])) {
        found.push(`${node['Relation Name']} in: ${query.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    }
  }
  return found;
}

/** A parameter as an SQL literal of unknown type, which EXECUTE coerces to the parameter's type. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return literal(`{${value.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`);
  if (value instanceof Uint8Array) return literal(`\\x${Buffer.from(value).toString('hex')}`);
  return `'${String(value).replace(/'/g, "''")}'`;
}

/**
 * Runs `fn` on `query` prepared as `lqs_replayed` under `mode` (plan_cache_mode) in a transaction of
 * its own, passing the EXECUTE arguments of its captured parameters; deallocated afterwards.
 */
async function withPrepared<T>(
  db: Db,
  query: CapturedQuery,
  mode: 'auto' | 'force_generic_plan',
  fn: (tx: Queryable, execute: string) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(`set local plan_cache_mode = ${mode}`);
    await tx.query(`prepare lqs_replayed as ${query.text}`);
    try {
      const args = query.params.length > 0 ? `(${query.params.map(literal).join(', ')})` : '';
      return await fn(tx, `execute lqs_replayed${args}`);
    } finally {
      await tx.query('deallocate lqs_replayed');
    }
  });
}

/**
 * The plan PostgreSQL reuses for a prepared statement once it settles on a generic one: planned
 * without the parameters' values, so with average row estimates, which is how the service's named
 * statements usually run.
 */
export async function genericPlanNodes(db: Db, query: CapturedQuery): Promise<PlanNode[]> {
  return withPrepared(db, query, 'force_generic_plan', async (tx, execute) =>
    nodesOf(await tx.query<ExplainRow>(`explain (format json) ${execute}`)),
  );
}

/**
 * Rows a statement reads from `table` (or its partitions, `table_p…` on a mirror node database)
 * when executed with its captured parameters under `mode`: 'auto' runs its first, custom plan.
 */
export async function rowsReadFrom(db: Db, query: CapturedQuery, mode: 'auto' | 'force_generic_plan', table: string): Promise<number> {
  const nodes = await withPrepared(db, query, mode, async (tx, execute) =>
    nodesOf(await tx.query<ExplainRow>(`explain (analyze, format json) ${execute}`)),
  );
  const ofTable = (name: string | undefined) => name === table || name?.startsWith(`${table}_p`) === true;
  return nodes
    .filter((n) => ofTable(n['Relation Name']))
    .reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1) + (n['Rows Removed by Filter'] ?? 0), 0);
}

/** Executions after which PostgreSQL's plan cache (plan_cache_mode auto) has weighed a generic plan: five custom plans, then the choice. */
const SETTLING_EXECUTIONS = 8;

/**
 * The statements PostgreSQL plans again at every execution when prepared: after the first five
 * custom plans it keeps one generic plan unless that plan's estimated cost is above the custom
 * plans' average, as with a placeholder LIMIT (estimated at a tenth of the table) or a condition
 * whose planner support derives index bounds from the value. Each statement is executed with its
 * captured parameters until the plan cache has made its choice, then pg_prepared_statements says
 * whether it ever used a generic plan.
 */
export async function statementsPlannedEachTime(db: Db, queries: readonly CapturedQuery[]): Promise<string[]> {
  const found: string[] = [];
  for (const query of reading(queries)) {
    const generic = await withPrepared(db, query, 'auto', async (tx, execute) => {
      for (let i = 0; i < SETTLING_EXECUTIONS; i++) await tx.query(execute);
      const rows = await tx.query<{ generic_plans: number | bigint }>(
        `select generic_plans from pg_prepared_statements where name = 'lqs_replayed'`,
      );
      return Number(rows[0]!.generic_plans) > 0;
    });
    if (!generic) {
      const text = query.text.replace(/\s+/g, ' ');
      const from = Math.max(0, text.indexOf(' from '));
      found.push(text.slice(from, from + 200));
    }
  }
  return found;
}

/** Nodes that pass their input's rows on in the same order, or combine inputs without reordering by a key. */
const PASS_THROUGH = new Set(['Unique', 'Result', 'Subquery Scan', 'Append']);

/** The nodes reached from `node` through pass-through nodes, `node` excluded. */
function belowPassThrough(node: PlanNode): PlanNode[] {
  return (node.Plans ?? []).flatMap((child) => (PASS_THROUGH.has(child['Node Type']) ? belowPassThrough(child) : [child]));
}

const SORTS = new Set(['Sort', 'Incremental Sort']);

/**
 * Tables whose statements read one row per id (the current version of an entity or of its
 * staking): a sort of those rows under a limit sorts at most one. Generic plans estimate one row
 * for every keyed scan, so the estimates cannot tell these from a busy account's history.
 */
const ONE_ROW_PER_ID = new Set(['entity', 'entity_stake']);

/**
 * Tables the plan reads with a scan whose rows are sorted under a limit (through nodes such as
 * Unique or Append): all of the key's rows read to keep a few, where an index in the wanted order
 * would stop at the limit.
 */
export function sortedScansUnderLimit(nodes: readonly PlanNode[]): string[] {
  const found: string[] = [];
  for (const limit of nodes) {
    if (limit['Node Type'] !== 'Limit') continue;
    for (const sort of belowPassThrough(limit)) {
      if (!SORTS.has(sort['Node Type'])) continue;
      for (const scan of belowPassThrough(sort)) {
        const table = scan['Relation Name'];
        if (table && !ONE_ROW_PER_ID.has(table)) found.push(table);
      }
    }
  }
  return found;
}

/** sortedScansUnderLimit over the generic plans of the statements, each with the statement it is in. */
export async function sortedScansInGenericPlans(db: Db, queries: readonly CapturedQuery[]): Promise<string[]> {
  const found: string[] = [];
  for (const query of reading(queries)) {
    for (const table of sortedScansUnderLimit(await genericPlanNodes(db, query))) {
      found.push(`${table} in: ${query.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  }
  return found;
}
