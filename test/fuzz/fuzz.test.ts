/**
 * The fuzz suite in `npm test` (issue 9 item 7): a few hundred seeded mutations of the project's
 * own inputs (scenarios, PTX, Accel-Sim traces, gpgpusim.config files, `--set` values, output
 * paths, arguments), each run through the real CLI in a child process with a timeout and a
 * memory bound; no case may end in a stack trace, a hang, a memory blow-up or an unexpected
 * exit code. `npm run fuzz` runs thousands (scripts/fuzz.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, generateCase, generateCases, type FuzzCase } from './generate.ts';
import { FAILURES, OUTCOMES, classify, countOutcomes, materialize, runCases, runSpawned } from './runner.ts';

/** Cases run here (the CI tier; `npm run fuzz` runs 5000): about 15 s on two workers of this 2-core machine when idle. */
const CASES = 150;
const SEED = 20261124;

describe('fuzz case generator', () => {
  it('gives the same cases for the same seed, and case i does not depend on how many are drawn', () => {
    const a = generateCases(SEED, 40);
    const b = generateCases(SEED, 40);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(generateCase(SEED, 33))).toBe(JSON.stringify(a[33]));
    const other = generateCases(SEED + 1, 40);
    expect(other.filter((c, i) => JSON.stringify(c) === JSON.stringify(a[i])).length).toBeLessThan(5);
  });

  it('draws from every input family', () => {
    const families = new Set(generateCases(SEED, 200).map((c) => c.family));
    expect([...families].sort()).toEqual(['args', 'config', 'output', 'override', 'ptx', 'scenario', 'trace']);
  });
});

describe('outcome classes', () => {
  const base = { signal: null, timedOut: false, memoryExceeded: false };
  it('maps exit codes and messages to classes', () => {
    expect(classify({ ...base, code: 0, output: 'checks: 1 passed' })).toBe('ok');
    expect(classify({ ...base, code: 1, output: 'check FAIL' })).toBe('checkFailed');
    expect(classify({ ...base, code: 2, output: 'error: s.yaml:3:7: seed: Too big' })).toBe('inputError');
    expect(classify({ ...base, code: 3, output: 'simulation failed: deadlock at 100 ps' })).toBe('machineFailed');
  });
  it('fails stack traces, hangs, blow-ups and other exits', () => {
    const trace = 'internal error: TypeError: x is undefined\n    at f (/work/src/a.ts:3:9)\n';
    expect(classify({ ...base, code: 3, output: trace })).toBe('stackTrace');
    expect(classify({ ...base, code: 2, output: 'error: a\n    at Object.<anonymous> (file:///x.js:1:1)' })).toBe('stackTrace');
    expect(classify({ ...base, code: null, output: '', timedOut: true })).toBe('hang');
    expect(classify({ ...base, code: null, output: '', memoryExceeded: true })).toBe('memory');
    expect(classify({ ...base, code: 134, output: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' })).toBe('memory');
    expect(classify({ ...base, code: 2, output: '' })).toBe('badExit');
    expect(classify({ ...base, code: 3, output: '' })).toBe('badExit');
    expect(classify({ ...base, code: null, signal: 'SIGSEGV', output: '' })).toBe('badExit');
    expect(classify({ ...base, code: 130, output: '' })).toBe('badExit');
  });
  it('does not take a YAML error position for a stack frame', () => {
    expect(classify({ ...base, code: 2, output: 'error: s.yaml:2:1: syntax error: Implicit keys need to be on a single line at line 2, column 1' })).toBe('inputError');
  });
});

describe('the runner catches what it is there to catch', () => {
  const root = join(tmpdir(), `warpstate-fuzz-self-${process.pid}`);
  const vecadd = readFileSync(join(REPO_ROOT, 'scenarios/k-vecadd.yaml'), 'utf8').replace('kernels/vecadd.ptx', join(REPO_ROOT, 'scenarios/kernels/vecadd.ptx'));
  const hand = (id: number, files: Record<string, string>, argv: string[]): FuzzCase => ({ id, family: 'scenario', mutations: ['by hand'], files, dirs: [], readOnly: [], argv, spawn: true });
  const run = async (c: FuzzCase, timeoutMs: number, memoryMb: number) => {
    const dir = join(root, `case-${c.id}`);
    try {
      return await runSpawned(c, dir, materialize(c, dir), { root, timeoutMs, memoryMb, workers: 1, mode: 'spawn' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('a run longer than the per-case timeout is a hang, killed at the timeout', async () => {
    // vecadd over 65535 x 16 CTAs of 1024 threads: about 1e9 threads, minutes of functional run.
    const argv = ['run', '${CASE}/s.yaml', '-q', '--set', 'launches[0].grid=[65535,16,1]', '--set', 'launches[0].block=[1024,1,1]'];
    const r = await run(hand(1, { 's.yaml': vecadd }, argv), 3000, 1024);
    expect(r.outcome).toBe('hang');
    expect(r.ms).toBeGreaterThanOrEqual(3000);
  }, 30_000);

  it('a run past the RSS bound is a memory blow-up, stopped at the bound', async () => {
    // A 2^26-element f32 buffer is 256 MiB of data alone: past a 300 MiB bound with Node's own ~100 MiB.
    const r = await run(hand(2, { 's.yaml': vecadd }, ['run', '${CASE}/s.yaml', '-q', '--set', 'buffers[0].count=67108864']), 60_000, 300);
    expect(r.outcome).toBe('memory');
    // Stopped by whichever comes first: the RSS watcher past 300 MiB, or V8's heap cap at 0.75 x
    // the bound (225 MiB of heap, so the process is at least that large when it aborts).
    expect(r.peakRssMb).toBeGreaterThanOrEqual(225);
  }, 90_000);

  it('a clean input error is an inputError, with the exact command to reproduce it', async () => {
    const r = await run(hand(3, { 's.yaml': 'name: x\nseed: 1.5\n' }, ['run', '${CASE}/s.yaml']), 20_000, 1024);
    expect(r.outcome).toBe('inputError');
    expect(r.detail).toMatch(/s\.yaml:2:7: seed: /);
    expect(r.command).toContain('bin/warpstate.js run ');
  }, 30_000);
});

describe('fuzzing the CLI', () => {
  it(
    `${CASES} seeded cases: no stack trace, hang, memory blow-up or bad exit code`,
    async () => {
      const root = join(tmpdir(), `warpstate-fuzz-test-${process.pid}`);
      try {
        const results = await runCases({ length: CASES, get: (i) => generateCase(SEED, i) }, { root, timeoutMs: 30_000, memoryMb: 1024, workers: 2, mode: 'worker' });
        expect(results).toHaveLength(CASES);
        const counts = countOutcomes(results);
        expect(Object.keys(counts)).toEqual([...OUTCOMES]);
        const failures = results.filter((r) => FAILURES.includes(r.outcome)).map((r) => `${r.outcome}: case ${r.id} (${r.family}: ${r.mutations.join('; ')}): ${r.detail}\n  ${r.command}`);
        expect(failures).toEqual([]);
        // The mutations reach past the parsers: some runs succeed, most are refused cleanly.
        expect(counts.ok + counts.checkFailed + counts.machineFailed).toBeGreaterThan(CASES / 15);
        expect(counts.inputError).toBeGreaterThan(CASES / 3);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
