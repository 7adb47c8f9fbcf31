/**
 * The process gauges the reference's REST service exposes (through swagger-stats) and its Grafana
 * dashboard and CPU alert read: memory by kind and CPU use in percent, without labels. prom-client's
 * own process metrics (`process_cpu_seconds_total`, `nodejs_heap_size_*`) carry the same facts under
 * other names; these are read when scraped.
 */
import { Gauge, type Registry } from 'prom-client';

type MemoryKind = keyof Pick<NodeJS.MemoryUsage, 'rss' | 'heapTotal' | 'heapUsed' | 'external'>;

const MEMORY: readonly [name: string, kind: MemoryKind, help: string][] = [
  ['nodejs_process_memory_rss_bytes', 'rss', 'Resident set size of the Node.js process in bytes'],
  ['nodejs_process_memory_heap_total_bytes', 'heapTotal', 'V8 heap allocated in bytes'],
  ['nodejs_process_memory_heap_used_bytes', 'heapUsed', 'V8 heap used in bytes'],
  ['nodejs_process_memory_external_bytes', 'external', 'Memory of C++ objects bound to JavaScript objects in bytes'],
];

/**
 * CPU time (user and system) the process used since the previous reading, in percent of the wall
 * time between them (one full core = 100; the first reading covers the time since start-up).
 */
export class CpuUsageMeter {
  private last = { at: process.hrtime.bigint(), usage: process.cpuUsage() };

  constructor(startedAt?: { at: bigint; usage: NodeJS.CpuUsage }) {
    if (startedAt) this.last = startedAt;
  }

  read(now = process.hrtime.bigint(), usage = process.cpuUsage()): number {
    const elapsedUs = Number(now - this.last.at) / 1000;
    const usedUs = usage.user - this.last.usage.user + (usage.system - this.last.usage.system);
    this.last = { at: now, usage };
    return elapsedUs > 0 ? (100 * usedUs) / elapsedUs : 0;
  }
}

/** Adds the reference's process gauges to `registry` (once per process: see processMetrics). */
export function registerReferenceProcessMetrics(registry: Registry): void {
  for (const [name, kind, help] of MEMORY) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(process.memoryUsage()[kind]);
      },
    });
  }
  const cpu = new CpuUsageMeter({
    at: process.hrtime.bigint() - BigInt(Math.round(process.uptime() * 1e9)),
    usage: { user: 0, system: 0 },
  });
  new Gauge({
    name: 'nodejs_process_cpu_usage_percentage',
    help: 'CPU time used by the Node.js process since the previous scrape, in percent of one core',
    registers: [registry],
    collect() {
      this.set(cpu.read());
    },
  });
}
