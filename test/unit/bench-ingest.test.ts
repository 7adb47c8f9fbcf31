import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BenchUsageError } from '../../tools/bench/options.js';
import { type IngestRun, ingestFigures, ingestMarkdown, parseIngestBenchOptions } from '../../tools/bench/ingestReport.js';

function run(
  backend: string,
  n: number,
  wallMs: number,
  cpuMs: number,
  readMs: number,
  writeMs: number,
  appliedMs = writeMs / 2,
): IngestRun {
  const serverCpuMs = backend === 'postgres' ? wallMs / 4 : null;
  return { backend, run: n, files: 10, records: 5000, wallMs, cpuMs, serverCpuMs, readMs, writeMs, appliedMs };
}

describe('bench ingest options', () => {
  it('the ci size by default, both backends, one run; large runs three', () => {
    assert.deepEqual(parseIngestBenchOptions([]), {
      size: 'ci',
      nodes: 4,
      files: 40,
      recordsPerFile: 500,
      backends: ['postgres', 'pglite'],
      runs: 1,
      outDir: 'tools/bench/results',
      stream: null,
    });
    const large = parseIngestBenchOptions(['--size', 'large', '--backend', 'postgres']);
    assert.deepEqual([large.files, large.recordsPerFile, large.runs, large.backends], [150, 1000, 3, ['postgres']]);
    const custom = parseIngestBenchOptions(['--files', '3', '--records', '7', '--runs', '2', '--out', '/tmp/x']);
    assert.deepEqual([custom.files, custom.recordsPerFile, custom.runs, custom.outDir], [3, 7, 2, '/tmp/x']);
    assert.equal(parseIngestBenchOptions(['--stream', '/tmp/s', '--files', '3']).stream, '/tmp/s');
  });

  it('refuses unknown sizes, backends and counts that are not positive integers', () => {
    for (const args of [['--size', 'huge'], ['--backend', 'mysql'], ['--files', '0'], ['--records', 'x'], ['--runs=-1'], ['--help']])
      assert.throws(() => parseIngestBenchOptions(args), BenchUsageError, args.join(' '));
    assert.throws(() => parseIngestBenchOptions(['--colour']), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });
});

describe('bench ingest figures', () => {
  it("takes each backend's median over runs of records/s, files/s, the core shares, the read/write shares and the appliers' part of writing", () => {
    const figures = ingestFigures([
      run('postgres', 1, 1000, 500, 200, 700, 70),
      run('pglite', 1, 4000, 3000, 400, 3400, 1700),
      run('postgres', 2, 2000, 600, 300, 1500, 600),
      run('postgres', 3, 500, 400, 100, 350, 105),
    ]);
    assert.deepEqual(figures, [
      {
        backend: 'postgres',
        runs: 3,
        files: 10,
        records: 5000,
        recordsPerSecond: 5000,
        filesPerSecond: 10,
        coreShare: 0.5,
        serverCoreShare: 0.25,
        readShare: 0.2,
        writeShare: 0.7,
        appliedOfWrite: 0.3,
      },
      {
        backend: 'pglite',
        runs: 1,
        files: 10,
        records: 5000,
        recordsPerSecond: 1250,
        filesPerSecond: 2.5,
        coreShare: 0.75,
        serverCoreShare: null,
        readShare: 0.1,
        writeShare: 0.85,
        appliedOfWrite: 0.5,
      },
    ]);
  });

  it('prints one table row per backend', () => {
    const text = ingestMarkdown(ingestFigures([run('postgres', 1, 2000, 1000, 500, 1400)]), 'Ingestion');
    assert.equal(
      text,
      'Ingestion\n\n' +
        '| backend | runs | files | records | records/s | files/s | share of one core | PostgreSQL server | reading + verification | writing | state appliers (of writing) |\n' +
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n' +
        '| postgres | 1 | 10 | 5000 | 2500 | 5.0 | 0.50 | 0.25 | 25 % | 70 % | 50 % |\n',
    );
  });
});
