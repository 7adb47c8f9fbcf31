import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { demoSetup } from '../../src/demo/ledger.js';
import { get, useHarness } from '../support/harness.js';
import { urls } from '../support/fuzz.js';

/** CI runs a few thousand cases; `npm run fuzz` sets LQS_FUZZ_RUNS to 100k+. */
const RUNS = Number(process.env.LQS_FUZZ_RUNS ?? 3000);
const ALLOWED = new Set([200, 206, 400, 404, 414]);
const LEAKS = /\bat [\w.<>]+ \(|node:internal|\bselect\b.*\bfrom\b|syntax error|relation "|TypeError|RangeError|ReferenceError|stack/i;

describe('every endpoint under generated valid, boundary and hostile input', () => {
  const harness = useHarness();

  it(`answers ${RUNS} generated requests with documented statuses and envelopes`, async () => {
    await harness().prepare(demoSetup());
    const counts = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const res = await get(harness(), url);
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
        assert.ok(ALLOWED.has(res.status), `${res.status} for ${url}: ${res.text.slice(0, 300)}`);
        assert.match(String(res.headers['content-type']), /^application\/json/, url);
        assert.doesNotMatch(res.text, LEAKS, url);
        if (res.status >= 400) {
          const messages = res.body?._status?.messages;
          assert.ok(Array.isArray(messages) && messages.length > 0, url);
          for (const m of messages) assert.equal(typeof m.message, 'string', url);
        }
      }),
      { numRuns: RUNS, seed: process.env.LQS_FUZZ_SEED ? Number(process.env.LQS_FUZZ_SEED) : undefined },
    );
    console.log(`fuzz: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}`);
  });
});
