/**
 * One measurement: autocannon drives `concurrency` keep-alive connections for a fixed time through
 * a request mix. Latencies are taken from every response (not only 2xx, and at sub-millisecond
 * resolution), statuses are counted per code, and each status is checked against what the mix
 * expects of that request.
 */
import autocannon from 'autocannon';
import { startCpuReading, type CpuPerRequest } from './cpu.js';
import { percentile } from './stats.js';
import { meetsExpectation, type MixRequest } from './targets.js';

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  latencyMs: { p50: number; p99: number; p999: number; mean: number; max: number };
  /** responses by status code */
  statuses: Record<string, number>;
  /** responses whose status differs from what the mix expects of the request */
  unexpected: number;
  /** a few of those, for the log */
  unexpectedExamples: string[];
  /** connection errors by code, timeouts included */
  socketErrors: Record<string, number>;
  /** mean bytes received per response (headers and body, as sent: compressed when negotiated) */
  bytesPerResponse?: number;
}

interface Context {
  request?: MixRequest;
}

/** `headers` go on every request (an Accept-Encoding, for the compression measurement). */
export function runLoad(
  baseUrl: string,
  mix: readonly MixRequest[],
  concurrency: number,
  durationSeconds: number,
  startAt = 0,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  let next = startAt;
  let bytes = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const socketErrors: Record<string, number> = {};
  let unexpected = 0;
  const unexpectedExamples: string[] = [];

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: concurrency,
        duration: durationSeconds,
        headers,
        timeout: 30,
        requests: [
          {
            setupRequest: (request, context) => {
              const item = mix[next++ % mix.length]!;
              (context as Context).request = item;
              request.path = item.path;
              return request;
            },
            onResponse: (status, _body, context) => {
              const item = (context as Context).request;
              if (item && !meetsExpectation(status, item.expect)) {
                unexpected++;
                if (unexpectedExamples.length < 5)
                  unexpectedExamples.push(`${status} for ${item.path} (${item.kind}, expected ${item.expect})`);
              }
            },
          },
        ],
      },
      (err: unknown, result: autocannon.Result) => {
        if (err) return reject(err);
        const sorted = Float64Array.from(latencies).sort();
        const total = latencies.reduce((a, b) => a + b, 0);
        if (result.timeouts > 0) socketErrors.timeout = (socketErrors.timeout ?? 0) + result.timeouts;
        resolve({
          requests: latencies.length,
          seconds: result.duration,
          rps: latencies.length / result.duration,
          latencyMs: {
            p50: percentile(sorted, 50),
            p99: percentile(sorted, 99),
            p999: percentile(sorted, 99.9),
            mean: latencies.length ? total / latencies.length : NaN,
            max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          },
          statuses,
          unexpected,
          unexpectedExamples,
          socketErrors,
          bytesPerResponse: latencies.length ? bytes / latencies.length : NaN,
        });
      },
    );
    instance.on('response', (_client, statusCode, responseBytes, responseTime) => {
      latencies.push(responseTime);
      bytes += responseBytes;
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
    instance.on('reqError', (err: { code?: string; message?: string }) => {
      if (err?.message === 'request timed out') return; // counted from the result
      const code = err?.code ?? 'error';
      socketErrors[code] = (socketErrors[code] ?? 0) + 1;
    });
  });
}

/** runLoad against a service child, with the CPU per request that it, PostgreSQL and this process spent meanwhile. */
export async function runLoadWithCpu(
  service: { baseUrl: string; pid: number },
  mix: readonly MixRequest[],
  concurrency: number,
  durationSeconds: number,
  startAt = 0,
  headers: Record<string, string> = {},
): Promise<{ result: LoadResult; cpu: CpuPerRequest }> {
  const reading = startCpuReading(service.pid);
  const result = await runLoad(service.baseUrl, mix, concurrency, durationSeconds, startAt, headers);
  return { result, cpu: reading.perRequestUs(result.requests) };
}

/**
 * Waits until the service answers a primary-key request quickly three times in a row (at most
 * 30 s): requests cut off at the end of a measurement keep running in the service and must not
 * weigh on the next one.
 */
export async function settle(baseUrl: string, pkPath: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let fast = 0; fast < 3 && Date.now() < deadline; ) {
    const started = performance.now();
    await fetch(baseUrl + pkPath)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    fast = performance.now() - started < 20 ? fast + 1 : 0;
    if (fast === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
