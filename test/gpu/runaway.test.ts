/**
 * Runaway kernels (issue 9 item 6): a kernel that spins on a flag nobody sets ends at the run's
 * cycle cap (`maxCycles`, `--max-cycles`) with a report naming the kernel and the warps still
 * running with their PCs, exit code 3, and partial statistics written.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulationError } from '../../src/errors.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runCli } from '../helpers/cli.ts';

const SPIN = `.version 8.0
.target sm_75
.address_size 64

.visible .entry spin(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd2, %rd1;
$L_wait:
  ld.volatile.global.u32 %r1, [%rd2];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  ret;
}
`;

function scenario(maxCycles?: number, extra: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-spin-'));
  writeFileSync(join(dir, 'spin.ptx'), SPIN);
  const file = join(dir, 'spin.yaml');
  writeFileSync(
    file,
    [
      'name: spin',
      'mode: timing',
      'gpu: { preset: gtx480, set: [sm.count=2] }',
      ...(maxCycles !== undefined ? [`maxCycles: ${maxCycles}`] : []),
      ...extra,
      'buffers:',
      '  - { name: flag, type: u32, count: 1, init: { generator: zeros } }',
      'launches:',
      '  - { ptx: spin.ptx, entry: spin, grid: [2, 1, 1], block: [64, 1, 1], args: [ { buffer: flag } ] }',
    ].join('\n') + '\n',
  );
  return file;
}

describe('runaway kernels', () => {
  it('a spinning kernel stops at maxCycles with a report naming the kernel and each warp with its PC', () => {
    let error: unknown;
    try {
      runKernelScenarioTiming(loadScenario(scenario(20_000)));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const msg = (error as Error).message;
    expect(msg).toContain('cycle cap of 20000 core cycles reached');
    expect(msg).toMatch(/GPU\.SMWM: kernel 0 running: 0\/2 CTAs done, 2 dispatched/);
    // Each SM holds one CTA of 2 warps, spinning in the loop (pc 2..4 of function 0).
    expect(msg).toMatch(/GPU\.SM\[0\]\.ISSUE: 1 CTAs of spin resident; warps: w0 pc 0:[2-4]( \d+ outstanding)?, w1 pc 0:[2-4]/);
    expect(msg).toMatch(/GPU\.SM\[1\]\.ISSUE: 1 CTAs of spin resident; warps: w0 pc 0:[2-4]/);
  });

  it('the CLI exits 3 and writes partial statistics at the cap (--max-cycles overrides the scenario)', async () => {
    const stats = join(mkdtempSync(join(tmpdir(), 'warpstate-spin-out-')), 'stats.json');
    const r = await runCli(['run', scenario(), '--max-cycles', '15000', '--stats', stats, '-q']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('cycle cap of 15000 core cycles reached');
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop.reason).toBe('error');
    expect(doc.stop.report.units.map((u: { unit: string }) => u.unit)).toEqual(expect.arrayContaining(['GPU.SMWM', 'GPU.SM[0].ISSUE', 'GPU.SM[1].ISSUE']));
    expect(doc.stats.gpu_sim_cycle).toBe(15000);
    expect(doc.stats.gpu_tot_warp_insts).toBeGreaterThan(1000);
    const bad = await runCli(['run', scenario(), '--max-cycles', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--max-cycles');
  });

  it('the watchdog stops a spin loop as a livelock after livelockCycles without a memory write or CTA change', () => {
    // Windows of 1000 cycles; the CTAs are dispatched in the first window, after which the warps
    // only load and branch: the first window end at least 5000 cycles later is cycle 6000.
    let error: unknown;
    try {
      runKernelScenarioTiming(loadScenario(scenario(1_000_000, ['deadlockCycles: 1000', 'livelockCycles: 5000'])));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const msg = (error as Error).message;
    expect(msg).toMatch(/^livelock at \d+ ps: livelock: \d+ warp instructions issued in 5000\+ core cycles with no memory write/);
    expect(msg).toMatch(/GPU\.SM\[0\]\.ISSUE: 1 CTAs of spin resident; warps: w0 pc 0:[2-4]/);
    const report = (error as SimulationError).details as { time_ps: number };
    // gtx480 core clock 700 MHz: a 1000-cycle window is ceil(1000 / 700e6 s) = 1428572 ps, and
    // the sixth window ends at 6 x 1428572 = 8571432 ps.
    expect(report.time_ps).toBe(8_571_432);
  });

  it('livelockCycles: 0 turns the livelock check off (the cycle cap still ends the run)', () => {
    expect(() => runKernelScenarioTiming(loadScenario(scenario(12_000, ['deadlockCycles: 1000', 'livelockCycles: 0'])))).toThrow(/cycle cap of 12000 core cycles reached/);
  });

  it('a kernel that stores keeps running: no livelock while memory is written', () => {
    // vecadd with a 1000-cycle livelock window: every warp stores, and CTAs complete.
    const loaded = loadScenario('scenarios/k-vecadd.yaml', ['livelockCycles=1000', 'deadlockCycles=500']);
    const r = runKernelScenarioTiming(loaded);
    expect(r.passed).toBe(true);
  });
});

