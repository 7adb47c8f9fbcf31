/**
 * `npm run bench -- driver`: the client's CPU per query of each database client (driverVariants.ts)
 * on the service's own statements (an account, a block, a page of blocks, an account's NFTs, a
 * contract result), one connection, one statement at a time, against a generated ledger in
 * PostgreSQL. Each variant and statement runs in a child process of its own: natively for CPU
 * µs per query (process.cpuUsage), and with --callgrind under valgrind's callgrind for the
 * instructions per query, which a busy machine does not disturb: callgrind counts nothing during
 * the warm-up (long enough for V8 to have compiled what the queries run) and is switched on for
 * the measured queries only (callgrind_control), in two runs of different lengths whose difference
 * is divided by the difference of their queries. First it checks that every variant returns the
 * same values as the service's Db.
 */
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Queryable } from '../../src/db/db.js';
import { findCurrentAccountState } from '../../src/routes/accounts/queries.js';
import { findBlocks, findBlocksByNumber } from '../../src/routes/blocks/queries.js';
import { byHash, findContractResultDetail } from '../../src/routes/contract-results/queries.js';
import { findNfts } from '../../src/routes/nfts/queries.js';
import { BenchUsageError } from './options.js';
import { openVariant, VARIANT_DESCRIPTIONS, VARIANTS, type VariantName } from './driverVariants.js';

export const DRIVER_USAGE = `usage: bench driver [--url URL] [--variants a,b] [--statements a,b] [--queries N] [--callgrind] [--json FILE]

  --url         PostgreSQL database holding a generated ledger (default DATABASE_URL), e.g. small scale
  --variants    ${VARIANTS.join(', ')} (default all)
  --statements  ${'account, block, blocks, nfts, contract-result'} (default all)
  --queries     queries per native measurement after the warm-up (default 3000)
  --callgrind   also count instructions per query under valgrind --tool=callgrind (slow)
  --json        write the figures as JSON`;

/** The service's statements with their arguments, as its endpoints run them. */
interface Arguments {
  account: bigint;
  nftOwner: bigint;
  block: bigint;
  hash: Buffer;
}

const STATEMENTS = {
  /** /api/v1/accounts/{id} without transactions */
  account: (db: Queryable, a: Arguments) => findCurrentAccountState(db, { kind: 'id', id: a.account }, 1000),
  /** /api/v1/blocks/{number} */
  block: (db: Queryable, a: Arguments) => findBlocksByNumber(db, a.block),
  /** /api/v1/blocks */
  blocks: (db: Queryable) => findBlocks(db, [], 'index', 'desc', 25),
  /** /api/v1/accounts/{id}/nfts */
  nfts: (db: Queryable, a: Arguments) =>
    findNfts(db, { owner: { kind: 'id', id: a.nftOwner }, parts: [[]], spenderRange: [], spenderIn: null, order: 'desc', limit: 25 }),
  /** /api/v1/contracts/results/{hash} */
  'contract-result': (db: Queryable, a: Arguments) => findContractResultDetail(db, byHash(a.hash)),
} as const;
type StatementName = keyof typeof STATEMENTS;
const STATEMENT_NAMES = Object.keys(STATEMENTS) as StatementName[];

/** queries before the measured ones: V8 has compiled what they run by then (--trace-opt shows no more) */
const WARM_UP = 5000;
/** measured queries of the two callgrind runs */
const CALLGRIND_QUERIES = [1000, 2000] as const;

/** Arguments that give each statement a typical answer: an account with tokens, a full NFT page, a result with logs and state changes. */
async function chooseArguments(db: Queryable): Promise<Arguments> {
  const [row] = await db.query<{ account: bigint; nft_owner: bigint; block: bigint; hash: Buffer }>(
    `select (select account_id from token_account where associated group by account_id order by count(*) desc, account_id offset 20 limit 1) as account,
       (select account_id from nft where deleted is false group by account_id order by count(*) desc, account_id offset 2 limit 1) as nft_owner,
       (select index from record_file order by index desc offset 100 limit 1) as block,
       (select h.hash from contract_transaction_hash h
          where exists (select 1 from contract_log l where l.consensus_timestamp = h.consensus_timestamp)
            and exists (select 1 from contract_state_change s where s.consensus_timestamp = h.consensus_timestamp)
          order by h.consensus_timestamp limit 1) as hash`,
  );
  if (!row || row.account === null || row.nft_owner === null || row.block === null || row.hash === null) {
    throw new Error('the database holds no generated ledger (tools/generate): no account with tokens, NFTs, blocks or contract results');
  }
  return { account: row.account, nftOwner: row.nft_owner, block: row.block, hash: Buffer.from(row.hash) };
}

/** Values compared as the service's code sees them: a Buffer as its bytes, any Array as a plain array. */
function normalized(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('hex') };
  if (Array.isArray(value)) return Array.from(value, normalized);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalized(v)]));
  }
  return value;
}

interface ChildFigures {
  queries: number;
  cpuUs: number;
  wallUs: number;
}

/** In a child: runs one statement WARM_UP + `queries` times on one variant and prints its CPU figures. */
async function runChild(url: string, variantName: VariantName, statement: StatementName, queries: number, hold: boolean): Promise<void> {
  const variant = await openVariant(variantName, url);
  const input = hold ? createInterface({ input: process.stdin }) : null;
  const lines = input?.[Symbol.asyncIterator]();
  try {
    const args = await chooseArguments(variant.db);
    const run = STATEMENTS[statement];
    for (let i = 0; i < WARM_UP; i++) await run(variant.db, args);
    // with --hold, the parent switches callgrind's counting on before the measured queries and off after them
    if (lines) {
      process.stdout.write('warm\n');
      await lines.next();
    }
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < queries; i++) await run(variant.db, args);
    const used = process.cpuUsage(cpu);
    const wallUs = Number(process.hrtime.bigint() - start) / 1000;
    const figures: ChildFigures = { queries, cpuUs: used.user + used.system, wallUs };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    if (lines) await lines.next();
  } finally {
    input?.close();
    await variant.close();
  }
}

const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

/** Runs a child (under callgrind when asked, counting only its measured queries); its figures, and the instructions callgrind collected. */
function spawnChild(
  url: string,
  variant: VariantName,
  statement: StatementName,
  queries: number,
  callgrind: boolean,
): Promise<{ figures: ChildFigures; instructions: number | null }> {
  const nodeArgs = [
    MAIN,
    'bench',
    'driver',
    '--child',
    '--url',
    url,
    '--variants',
    variant,
    '--statements',
    statement,
    '--queries',
    String(queries),
  ];
  const [command, args] = callgrind
    ? ['valgrind', ['--tool=callgrind', '--instr-atstart=no', '--callgrind-out-file=/dev/null', process.execPath, ...nodeArgs, '--hold']]
    : [process.execPath, nodeArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args as string[], { stdio: ['pipe', 'pipe', 'pipe'] });
    const instrumentation = (state: 'on' | 'off') =>
      new Promise<void>((done, failed) =>
        execFile('callgrind_control', ['-i', state, String(child.pid)], (err) => (err ? failed(err) : done())),
      );
    let figures: ChildFigures | null = null;
    let err = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!callgrind) {
        figures = JSON.parse(line) as ChildFigures;
        return;
      }
      const next = line === 'warm' ? instrumentation('on') : instrumentation('off');
      if (line !== 'warm') figures = JSON.parse(line) as ChildFigures;
      next.then(
        () => child.stdin.write('\n'),
        (e: Error) => {
          child.kill();
          reject(e);
        },
      );
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || figures === null)
        return reject(new Error(`${variant} ${statement}: child exited with ${code}\n${err.slice(-2000)}`));
      const collected = /Collected\s*:\s*(\d+)/.exec(err);
      resolve({ figures, instructions: collected ? Number(collected[1]) : null });
    });
  });
}

function list<T extends string>(text: string | undefined, all: readonly T[], what: string): T[] {
  if (text === undefined) return [...all];
  const items = text.split(',').map((s) => s.trim());
  for (const item of items) if (!all.includes(item as T)) throw new BenchUsageError(`unknown ${what} "${item}" (${all.join(', ')})`);
  return items as T[];
}

export interface DriverFigure {
  variant: VariantName;
  statement: StatementName;
  cpuUsPerQuery: number;
  wallUsPerQuery: number;
  instructionsPerQuery: number | null;
}

export async function runDriverBench(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        variants: { type: 'string' },
        statements: { type: 'string' },
        queries: { type: 'string' },
        callgrind: { type: 'boolean' },
        json: { type: 'string' },
        child: { type: 'boolean' },
        hold: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${DRIVER_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${DRIVER_USAGE}\n`);
    return 0;
  }
  let variants: VariantName[];
  let statements: StatementName[];
  try {
    variants = list(values.variants as string | undefined, VARIANTS, 'variant');
    statements = list(values.statements as string | undefined, STATEMENT_NAMES, 'statement');
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${DRIVER_USAGE}\n`);
    return 2;
  }
  const url = (values.url as string | undefined) ?? process.env.DATABASE_URL;
  const queries = Number((values.queries as string | undefined) ?? 3000);
  if (!url || !Number.isSafeInteger(queries) || queries < 1) {
    process.stderr.write(`${url ? '--queries: a positive integer' : 'no database: --url or DATABASE_URL'}\n${DRIVER_USAGE}\n`);
    return 2;
  }
  if (values.child) {
    await runChild(url, variants[0]!, statements[0]!, queries, values.hold === true);
    return 0;
  }

  // the same answers from every variant
  const reference = await openVariant('service', url);
  const args = await chooseArguments(reference.db);
  const expected = new Map<StatementName, unknown>();
  for (const s of statements) expected.set(s, normalized(await STATEMENTS[s](reference.db, args)));
  await reference.close();
  const differing = new Set<string>();
  for (const v of variants) {
    const variant = await openVariant(v, url);
    for (const s of statements) {
      // twice: the service's Db answers its second execution of a statement another way than its first
      for (let i = 0; i < 2; i++) {
        if (!isDeepStrictEqual(normalized(await STATEMENTS[s](variant.db, args)), expected.get(s))) {
          process.stderr.write(`${v}: the answer to ${s} differs from the service's Db\n`);
          differing.add(`${v} ${s}`);
          break;
        }
      }
    }
    await variant.close();
  }

  const figures: DriverFigure[] = [];
  for (const s of statements) {
    for (const v of variants) {
      const native = await spawnChild(url, v, s, queries, false);
      let instructionsPerQuery: number | null = null;
      if (values.callgrind) {
        // the slope between two runs: what the counting window holds besides queries (V8's work while the process idles) cancels
        const [few, many] = CALLGRIND_QUERIES;
        const fewCount = (await spawnChild(url, v, s, few, true)).instructions;
        const manyCount = (await spawnChild(url, v, s, many, true)).instructions;
        if (fewCount !== null && manyCount !== null) instructionsPerQuery = Math.round((manyCount - fewCount) / (many - few));
      }
      const figure: DriverFigure = {
        variant: v,
        statement: s,
        cpuUsPerQuery: native.figures.cpuUs / native.figures.queries,
        wallUsPerQuery: native.figures.wallUs / native.figures.queries,
        instructionsPerQuery,
      };
      figures.push(figure);
      process.stderr.write(
        `${s.padEnd(16)} ${v.padEnd(12)} ${figure.cpuUsPerQuery.toFixed(1).padStart(7)} µs CPU ${figure.wallUsPerQuery.toFixed(1).padStart(7)} µs wall ${instructionsPerQuery === null ? '' : `${instructionsPerQuery.toLocaleString('en-US').padStart(11)} instructions`}\n`,
      );
    }
  }
  process.stdout.write(`${markdown(figures, variants, statements, differing)}\n`);
  if (values.json) {
    const report = { variants: VARIANT_DESCRIPTIONS, figures, differingAnswers: [...differing] };
    writeFileSync(values.json as string, `${JSON.stringify(report, null, 2)}\n`);
  }
  // a client whose answers differ is a finding of the comparison; the service's own Db differing from itself is a failure
  return [...differing].some((d) => d.startsWith('service ')) ? 1 : 0;
}

function markdown(figures: DriverFigure[], variants: VariantName[], statements: StatementName[], differing: Set<string>): string {
  const cell = (s: StatementName, v: VariantName) => {
    const f = figures.find((x) => x.statement === s && x.variant === v)!;
    const instructions = f.instructionsPerQuery === null ? '' : `${Math.round(f.instructionsPerQuery / 1000).toLocaleString('en-US')} k / `;
    return `${instructions}${f.cpuUsPerQuery.toFixed(0)} µs${differing.has(`${v} ${s}`) ? ' (answer differs)' : ''}`;
  };
  const lines = [`| statement | ${variants.join(' | ')} |`, `|---|${variants.map(() => '---:').join('|')}|`];
  for (const s of statements) lines.push(`| ${s} | ${variants.map((v) => cell(s, v)).join(' | ')} |`);
  return lines.join('\n');
}
