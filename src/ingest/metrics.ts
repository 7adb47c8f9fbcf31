/** Ingestion's figures beside the API's metrics when `serve` ingests (`ingest.source`). */
import { Counter, Gauge, type Registry } from 'prom-client';

export class IngestMetrics {
  readonly files: Counter;
  readonly records: Counter;
  readonly verificationFailures: Counter;
  private newest: bigint | null = null;

  constructor(registry: Registry, now: () => number = Date.now) {
    const registers = [registry];
    this.files = new Counter({
      name: 'lqs_ingest_files_total',
      help: 'Stream files (record files, blocks) verified and written',
      registers,
    });
    this.records = new Counter({ name: 'lqs_ingest_records_total', help: 'Transactions of the files written', registers });
    this.verificationFailures = new Counter({
      name: 'lqs_ingest_verification_failures_total',
      help: 'Times the next stream file was refused (it is tried again)',
      registers,
    });
    const self = this;
    new Gauge({
      name: 'lqs_ingest_seconds_behind',
      help: 'Seconds between now and the consensus end of the newest file written (absent before any)',
      registers,
      collect() {
        if (self.newest === null) return;
        this.set(Math.max(0, now() / 1000 - Number(self.newest) / 1e9));
      },
    });
  }

  written(count: number, consensusEnd: bigint): void {
    this.files.inc();
    this.records.inc(count);
    this.newest = consensusEnd;
  }

  /** the newest file already stored when ingestion starts */
  startFrom(consensusEnd: bigint | null): void {
    this.newest = consensusEnd;
  }
}
