/** Progress of a long load: a cli-progress bar with rows/s on a terminal, a line every 10% otherwise. */
import cliProgress from 'cli-progress';

export interface Progress {
  start(label: string, total: number): void;
  update(done: number, rows: number): void;
  stop(): void;
  log(message: string): void;
}

export const silentProgress: Progress = {
  start: () => undefined,
  update: () => undefined,
  stop: () => undefined,
  log: () => undefined,
};

function rate(rows: number, since: number): string {
  const seconds = (performance.now() - since) / 1000;
  return seconds > 0 ? Math.round(rows / seconds).toLocaleString('en-US') : '0';
}

class BarProgress implements Progress {
  private bar: cliProgress.SingleBar | null = null;
  private startedAt = 0;

  start(label: string, total: number): void {
    this.startedAt = performance.now();
    this.bar = new cliProgress.SingleBar(
      {
        format: `${label} |{bar}| {percentage}% | {value}/{total} blocks | {rows} rows | {rate} rows/s | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 200,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { rows: '0', rate: '0' });
  }

  update(done: number, rows: number): void {
    this.bar?.update(done, { rows: rows.toLocaleString('en-US'), rate: rate(rows, this.startedAt) });
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }

  log(message: string): void {
    process.stderr.write(message + '\n');
  }
}

class LineProgress implements Progress {
  private label = '';
  private total = 0;
  private nextTenth = 1;
  private startedAt = 0;

  start(label: string, total: number): void {
    this.label = label;
    this.total = total;
    this.nextTenth = 1;
    this.startedAt = performance.now();
  }

  update(done: number, rows: number): void {
    if (this.total === 0 || done * 10 < this.nextTenth * this.total) return;
    this.nextTenth = Math.floor((done * 10) / this.total) + 1;
    this.log(
      `${this.label}: ${Math.floor((done * 100) / this.total)}% (${done}/${this.total} blocks, ${rows.toLocaleString('en-US')} rows, ${rate(rows, this.startedAt)} rows/s)`,
    );
  }

  stop(): void {}

  log(message: string): void {
    process.stderr.write(message + '\n');
  }
}

/** A bar on a terminal, plain lines when stderr is redirected. */
export function consoleProgress(): Progress {
  return process.stderr.isTTY ? new BarProgress() : new LineProgress();
}
