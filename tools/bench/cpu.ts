/**
 * Where the CPU goes under load: CPU time of processes read from /proc (the service child, and the
 * PostgreSQL server's processes on this host), and the functions with the most self time in a V8
 * `.cpuprofile` written by `--cpu-prof`.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The fields of `/proc/<pid>/stat` after the command name (state first); null when the process is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** User and kernel CPU time of a process in milliseconds; zeros when it is gone. */
export function processCpuTimes(pid: number): { userMs: number; kernelMs: number } {
  const fields = statFields(pid);
  if (!fields) return { userMs: 0, kernelMs: 0 };
  return { userMs: (Number(fields[11]) * 1000) / TICKS_PER_SECOND, kernelMs: (Number(fields[12]) * 1000) / TICKS_PER_SECOND };
}

const parentOf = (pid: number): number | null => {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : null;
};

/** User and kernel CPU milliseconds of a process and its children (a cluster primary and its workers), summed. */
export function cpuTimesOfTree(pid: number): { userMs: number; kernelMs: number } {
  const pids = [
    pid,
    ...readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e) && parentOf(Number(e)) === pid)
      .map(Number),
  ];
  return pids
    .map(processCpuTimes)
    .reduce((a, b) => ({ userMs: a.userMs + b.userMs, kernelMs: a.kernelMs + b.kernelMs }), { userMs: 0, kernelMs: 0 });
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
    const { userMs, kernelMs } = processCpuTimes(Number(entry));
    out.set(Number(entry), userMs + kernelMs);
  }
  return out;
}

/** CPU spent by processes named `name` between two readings (processes started in between count whole). */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

export interface CpuPerRequest {
  service: number;
  /** the part of `service` spent in the kernel (system calls, loopback networking) */
  serviceKernel: number;
  /** null when no PostgreSQL process runs on this host */
  postgres: number | null;
  /** this process, where the load generator runs: it shares the machine's cores with the other two */
  loadGenerator: number;
}

const cpuMsOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * CPU of the service (a process and its workers), of the PostgreSQL processes on this host and of
 * this process from now on; `perRequestUs` divides what they spent by the requests served.
 */
export function startCpuReading(servicePid: number): { perRequestUs(requests: number): CpuPerRequest } {
  const service0 = cpuTimesOfTree(servicePid);
  const postgres0 = cpuMsByName('postgres');
  const own0 = process.cpuUsage();
  return {
    perRequestUs(requests) {
      const service = cpuTimesOfTree(servicePid);
      const postgres = cpuMsByName('postgres');
      const perRequest = (ms: number) => (requests > 0 ? (ms * 1000) / requests : NaN);
      return {
        service: perRequest(service.userMs + service.kernelMs - service0.userMs - service0.kernelMs),
        serviceKernel: perRequest(service.kernelMs - service0.kernelMs),
        postgres: postgres.size === 0 ? null : perRequest(cpuMsBetween(postgres0, postgres)),
        loadGenerator: perRequest(cpuMsOf(process.cpuUsage(own0))),
      };
    },
  };
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
