/** `generate --scale S [--seed N] [--force] [--no-progress]` into the configured database. */
import { loadConfig } from '../../src/config.js';
import { generateDataset, GenerateRefused } from './generate.js';
import { consoleProgress, silentProgress } from './progress.js';
import type { ScaleName } from './scales.js';
import { openTarget } from './target.js';
import type { DatasetSummary } from './dataset.js';

export class GenerateUsageError extends Error {}

export function parseSeed(text: string | undefined): number {
  if (text === undefined) return 1;
  if (!/^\d{1,9}$/.test(text)) throw new GenerateUsageError(`--seed: an integer from 0 to 999999999, not ${text}`);
  return Number(text);
}

export function describeLoad(summary: DatasetSummary): string {
  const { load } = summary;
  const width = Math.max(...Object.keys(summary.rows).map((t) => t.length));
  const lines = Object.entries(summary.rows)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, n]) => `  ${table.padEnd(width)}  ${n.toLocaleString('en-US').padStart(12)}`);
  return [
    `${summary.scale} dataset, seed ${summary.seed}, on ${load.backend}:`,
    ...lines,
    `  ${'total'.padEnd(width)}  ${summary.totalRows.toLocaleString('en-US').padStart(12)}`,
    `generated and loaded in ${load.seconds.toFixed(1)} s (${Math.round(load.rowsPerSecond).toLocaleString('en-US')} rows/s); ` +
      `indexes ${load.indexSeconds.toFixed(1)} s, analyze ${load.analyzeSeconds.toFixed(1)} s; ` +
      `overall ${Math.round(summary.totalRows / (load.seconds + load.indexSeconds + load.analyzeSeconds)).toLocaleString('en-US')} rows/s`,
  ].join('\n');
}

export interface GenerateOptions {
  scale: ScaleName;
  seed: number;
  force: boolean;
  progress: boolean;
}

export async function generateCommand(options: GenerateOptions): Promise<number> {
  const config = loadConfig();
  const target = await openTarget(config);
  try {
    const result = await generateDataset(target, {
      scale: options.scale,
      seed: options.seed,
      force: options.force,
      system: { shard: config.shard, realm: config.realm },
      chainId: config.network.chainId,
      progress: options.progress ? consoleProgress() : silentProgress,
    });
    if (!result.skipped) console.log(describeLoad(result.summary));
    return 0;
  } catch (err) {
    if (err instanceof GenerateRefused) {
      console.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    await target.close();
  }
}
