/**
 * Where the CPU goes under load: CPU time of processes read from /proc (the service child, and the
 * PostgreSQL server's processes on this host), and the functions with the most self time in a V8
 * `.cpuprofile` written by `--cpu-prof`.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process in milliseconds; 0 when it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which is in parentheses and may hold spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** CPU milliseconds of a process and its children (a cluster primary and its workers), keyed by pid. */
export function cpuMsOfTree(pid: number): Map<number, number> {
  const out = new Map([[pid, processCpuMs(pid)]]);
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && parentOf(Number(entry)) === pid) out.set(Number(entry), processCpuMs(Number(entry)));
  }
  return out;
}

/** CPU milliseconds of every process named `name` (e.g. `postgres`), keyed by pid. */
export function cpuMsByName(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
    } catch {
      continue;
    }
    out.set(Number(entry), processCpuMs(Number(entry)));
  }
  return out;
}

/** CPU spent by processes named `name` between two readings (processes started in between count whole). */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  location: string;
  selfMs: number;
  share: number;
}

/** Functions by self time (the same function and location summed over call paths), most first. */
export function hotFunctions(profileText: string, count: number): HotFunction[] {
  const profile = JSON.parse(profileText) as CpuProfile;
  const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodeById.get(id)!.callFrame;
    const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '');
    const key = `${frame.functionName || '(anonymous)'}\t${file ? `${file}:${frame.lineNumber + 1}` : ''}`;
    const delta = profile.timeDeltas[i] ?? 0;
    selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
    totalUs += delta;
  });
  return [...selfUs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => {
      const [name, location] = key.split('\t') as [string, string];
      return { name, location, selfMs: us / 1000, share: totalUs ? us / totalUs : 0 };
    });
}
