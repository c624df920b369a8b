/**
 * Device `printf` output goes to the caller's output (issue 10 item 4): the CLI prints it on its
 * output stream after each kernel, before the statistics and checks, in functional and timing
 * mode alike and with `-q`; library callers get it through the `deviceOutput` option, one call
 * per launch. Nothing is written to the process's standard output. Expected lines are derived by
 * hand from `printk` in test/functional/fixtures/features.cu (threads 0-2 of each CTA print).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { StatsRegistry } from '../../src/stats/registry.ts';
import { runCli } from '../helpers/cli.ts';

const SCENARIO = 'test/cli/fixtures/device-printf/two-launches.yaml';

/** printk's lines for CTA `cta` with argument `f`: `%u %x %5.2f %e %g %s %c %lld %llu %ld %i` of t*3, t*255, f*t, f, f, "str", 'A'+t, -5t, 123456789012, -7, t. */
const lines = (cta: number, f: number, fe: string): string =>
  [0, 1, 2].map((t) => `cta ${cta} thread ${t}: ${3 * t} ${(255 * t).toString(16)} ${(f * t).toFixed(2).padStart(5)} ${fe} ${f} str ${'ABC'[t]} ${-5 * t} 123456789012 -7 ${t}\n`).join('');
const FIRST = lines(0, 1.5, '1.500000e+00') + lines(1, 1.5, '1.500000e+00');
const SECOND = lines(0, 2.5, '2.500000e+00');

let stdout = '';
afterEach(() => {
  vi.restoreAllMocks();
  stdout = '';
});
const spyStdout = () => vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));

describe('device printf through the CLI', () => {
  it('functional run: each launch\'s output after it, then the statistics and checks, on the CLI\'s output', async () => {
    spyStdout();
    const r = await runCli(['run', SCENARIO]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith(FIRST + SECOND)).toBe(true);
    expect(r.out.indexOf('# scenario device-printf-two-launches')).toBe((FIRST + SECOND).length);
    expect(r.out).toContain('checks: 1 passed, 0 failed');
    expect(stdout).toBe('');
  });

  it('timing run with -q: the same text, then only the checks', async () => {
    spyStdout();
    const r = await runCli(['run', SCENARIO, '--set', 'mode=timing', '-q']);
    expect(r.code).toBe(0);
    expect(r.out.startsWith(FIRST + SECOND)).toBe(true);
    expect(r.out.slice((FIRST + SECOND).length)).toMatch(/^check PASS: gpu_sim_insn > 0 \(actual \d+\)\nchecks: 1 passed, 0 failed\n$/);
    expect(stdout).toBe('');
  });

  it('--write-trace does not print the kernels twice', async () => {
    spyStdout();
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-printf-trace-'));
    const r = await runCli(['run', SCENARIO, '--write-trace', dir, '-q']);
    expect(r.code).toBe(0);
    expect(r.out.split('cta 0 thread 0:').length - 1).toBe(2); // once per launch
    expect(stdout).toBe('');
  });
});

describe('device printf for library callers', () => {
  it('runKernelScenarioFunctional and runKernelScenarioTiming hand each launch\'s text to deviceOutput', () => {
    spyStdout();
    const f: string[] = [];
    runKernelScenarioFunctional(loadScenario(SCENARIO), new StatsRegistry(), { deviceOutput: (t) => void f.push(t) });
    expect(f).toEqual([FIRST, SECOND]);
    const t: string[] = [];
    runKernelScenarioTiming(loadScenario(SCENARIO, ['mode=timing']), { deviceOutput: (s) => void t.push(s) });
    expect(t).toEqual([FIRST, SECOND]);
    expect(stdout).toBe('');
  });
});
