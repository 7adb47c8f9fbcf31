/**
 * p99 budgets (`--p99-budget accounts@32=250`): an endpoint's p99 latency at one concurrency, on the
 * run's larger dataset (the median over `--runs`), must stay within a bound, else the bench fails.
 * A regression of a plan (a sort of a busy account's rows, a sequential scan) shows in the tail
 * long before it shows in req/s.
 */
import { TARGET_NAMES, type TargetName } from './targets.js';

export interface P99Budget {
  target: TargetName;
  concurrency: number;
  maxMs: number;
}

const BUDGET = /^([a-z-]+)@(\d{1,6})=(\d{1,6}(?:\.\d+)?)$/;

/** `target@concurrency=ms`, comma-separated. */
export function parseP99Budgets(text: string): P99Budget[] {
  return text.split(',').map((part) => {
    const match = BUDGET.exec(part.trim());
    if (!match || !(TARGET_NAMES as readonly string[]).includes(match[1]!) || Number(match[2]) < 1 || Number(match[3]) <= 0)
      throw new Error(`target@concurrency=milliseconds (e.g. accounts@32=250), not ${part.trim()}`);
    return { target: match[1] as TargetName, concurrency: Number(match[2]), maxMs: Number(match[3]) };
  });
}

interface ResultLike {
  scale: string;
  target: TargetName;
  concurrency: number;
  p99Ms: number;
}

/** One line per budget not kept on `scale` (also one whose measurement is missing: a budget never goes unchecked). */
export function brokenBudgets(budgets: readonly P99Budget[], results: readonly ResultLike[], scale: string): string[] {
  const broken: string[] = [];
  for (const b of budgets) {
    const row = results.find((r) => r.scale === scale && r.target === b.target && r.concurrency === b.concurrency);
    if (!row) broken.push(`${scale} ${b.target} c=${b.concurrency}: not measured (budget p99 ≤ ${b.maxMs} ms)`);
    else if (!(row.p99Ms <= b.maxMs))
      broken.push(`${scale} ${b.target} c=${b.concurrency}: p99 ${row.p99Ms.toFixed(2)} ms over its budget of ${b.maxMs} ms`);
  }
  return broken;
}
