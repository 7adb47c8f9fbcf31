/**
 * The start-up check's list of what the service reads (READ_COLUMNS) is complete: every column that
 * a query plan of any reference spec request references is on it. Columns are taken from EXPLAIN
 * VERBOSE: a scan node names its table and alias, and expressions name `alias.column` (or the
 * column alone when a statement reads one table).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { REFERENCE_TEST_CONFIG } from '../../tools/testApp/harness.js';
import { findSpecFiles, loadCases } from '../../tools/conformance/spec.js';
import { READ_COLUMNS } from '../../src/db/schemaRequirements.js';
import { DEFAULT_SPECS_DIR } from '../../tools/paths.js';
import { useHarness } from '../support/harness.js';

interface PlanNode {
  'Relation Name'?: string;
  Alias?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

const walk = (node: PlanNode, out: PlanNode[] = []): PlanNode[] => {
  out.push(node);
  for (const child of node.Plans ?? []) walk(child, out);
  return out;
};

/** What a node computes, filters and sorts on: the texts that name columns. */
const EXPRESSION_KEYS = [
  'Output',
  'Filter',
  'Index Cond',
  'Recheck Cond',
  'Sort Key',
  'Join Filter',
  'Hash Cond',
  'Merge Cond',
  'Group Key',
];

describe('the start-up schema check', { skip: existsSync(DEFAULT_SPECS_DIR) ? false : `${DEFAULT_SPECS_DIR} is absent` }, () => {
  const harness = useHarness(REFERENCE_TEST_CONFIG);

  it('lists every column the queries of the reference spec requests read', async () => {
    const h = harness();
    const columnsOf = new Map<string, Set<string>>();
    const rootOf = new Map<string, string>();
    for (const row of await h.db.query<{ relation: string; root: string; column: string }>(
      `select c.relname::text as relation, coalesce(pg_partition_root(c.oid), c.oid)::regclass::text as root, a.attname::text as column
         from pg_class c join pg_attribute a on a.attrelid = c.oid
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped`,
    )) {
      rootOf.set(row.relation, row.root);
      if (!columnsOf.has(row.relation)) columnsOf.set(row.relation, new Set());
      columnsOf.get(row.relation)!.add(row.column);
    }

    const read = new Map<string, Set<string>>();
    const note = (relation: string, column: string) => {
      if (!columnsOf.get(relation)?.has(column)) return;
      const table = rootOf.get(relation) ?? relation;
      if (!read.has(table)) read.set(table, new Set());
      read.get(table)!.add(column);
    };
    const explained = new Set<string>();
    // a spec's cases mostly share its setup: the data loaded for one serves the next (GETs change nothing)
    let prepared: string | undefined;
    for (const file of findSpecFiles(DEFAULT_SPECS_DIR)) {
      for (const testCase of loadCases(file, DEFAULT_SPECS_DIR)) {
        const setup = JSON.stringify([testCase.setup, testCase.config], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
        if (setup !== prepared) await h.prepare(testCase.setup, ...testCase.config);
        prepared = setup;
        const queries = await h.captureQueries(() => h.app.inject({ method: 'GET', url: testCase.url, headers: testCase.requestHeaders }));
        for (const query of queries) {
          const key = query.text + JSON.stringify(query.params, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
          if (explained.has(key)) continue;
          explained.add(key);
          const [row] = await h.db.query<{ 'QUERY PLAN': unknown }>(`explain (verbose, format json) ${query.text}`, query.params);
          const raw = row!['QUERY PLAN'];
          const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
          const nodes = walk(plan[0]!.Plan);
          const relationsByAlias = new Map<string, Set<string>>();
          for (const node of nodes) {
            if (!node['Relation Name']) continue;
            const alias = node.Alias ?? node['Relation Name'];
            if (!relationsByAlias.has(alias)) relationsByAlias.set(alias, new Set());
            relationsByAlias.get(alias)!.add(node['Relation Name']);
          }
          const expressions = JSON.stringify(nodes.map((n) => EXPRESSION_KEYS.map((k) => n[k])));
          for (const [, alias, column] of expressions.matchAll(/\b([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\b/g)) {
            for (const relation of relationsByAlias.get(alias!) ?? []) note(relation, column!);
          }
          const relations = new Set([...relationsByAlias.values()].flatMap((s) => [...s]).map((r) => rootOf.get(r) ?? r));
          if (relations.size === 1) {
            // a statement on one table names its columns unqualified
            const [only] = [...relationsByAlias.values()].flatMap((s) => [...s]);
            for (const [word] of expressions.matchAll(/\b[a-z_][a-z0-9_]*\b/g)) note(only!, word);
          }
        }
      }
    }
    assert.ok(read.size > 10, 'the spec requests read many tables');
    const unlisted: string[] = [];
    for (const [table, columns] of read) {
      for (const column of columns) if (!READ_COLUMNS[table]?.includes(column)) unlisted.push(`${table}.${column}`);
    }
    assert.deepEqual(unlisted.sort(), []);
  });
});
