/** Query-plan checks: replay the queries a request ran under EXPLAIN and find sequential scans. */
import type { CapturedQuery } from '../../src/conformance/harness.js';
import type { Db } from '../../src/db/db.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, out: PlanNode[]): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
}

export async function planNodes(db: Db, query: CapturedQuery): Promise<PlanNode[]> {
  const rows = await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${query.text}`, query.params);
  const raw = rows[0]!['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  return walk(plan[0]!.Plan, []);
}

/** Tables among `large` that a plan of any of the queries reads with a sequential scan. */
export async function sequentialScans(db: Db, queries: readonly CapturedQuery[], large: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const query of queries) {
    for (const node of await planNodes(db, query)) {
      if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] && large.includes(node['Relation Name'])) {
        found.push(`${node['Relation Name']} in: ${query.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    }
  }
  return found;
}
