/**
 * The kernels that exercise warp scheduling (issue 13 item 5; specs/warp-level.md §7, §1.10,
 * §2.11): `phase_msl` (type A), `phase_long4` (type B), `l1i_bigcode` (code larger than the L1I),
 * and the scaled scenarios of `scenarios/scaled/` (library kernels at >= 2 waves of full
 * occupancy on m2090).
 *
 * CI tier only: every run here is scaled down (4 CTAs of 2 iterations on 2 SMs); the full-size scenarios are
 * checked statically (shape, occupancy arithmetic of their descriptions), never simulated, since
 * one full-size timing run takes 10-40 s on this machine.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.ts';
import { ctasPerSm } from '../../src/config/schema.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { prepareKernelScenario, runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { estimateRegsPerThread, runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { readScenario, SCENARIOS_DIR } from './scenario-helpers.ts';

/** The new library scenarios, each with the override that halves its loop count (4 or 3 -> 2). */
const KERNELS: [string, string][] = [
  ['k-phase-msl.yaml', 'launches[0].args[3].s32=2'],
  ['k-phase-long4.yaml', 'launches[0].args[2].s32=2'],
  ['k-l1i-bigcode.yaml', 'launches[0].args[2].s32=2'],
];
/** The warp scheduler policies the verification compares (spec §1.10: GTO, LRR, two-level). */
const POLICIES = ['{"kind":"gto"}', '{"kind":"lrr"}', '{"kind":"twoLevel","readyQueueSize":6,"inner":"rr","outer":"rr"}'];
/** Scenario overrides of the CI tier: 4 CTAs (the buffers stay large enough) on m2090. */
const SMALL = ['launches[0].grid=[4,1,1]', 'gpu={preset: m2090}'];

describe.each(KERNELS)('%s (4 CTAs, 2 iterations)', (file, iterations) => {
  const path = join(SCENARIOS_DIR, file);
  const small = [...SMALL, iterations];
  let functionalWarpInsts = 0;

  it('matches its host reference in functional mode', () => {
    const r = runKernelScenarioFunctional(loadScenario(path, small));
    expect(r.passed).toBe(true);
    expect(r.stats.value('functional.ctas')).toBe(4);
    functionalWarpInsts = r.stats.value('functional.warp_insts')!;
    expect(functionalWarpInsts).toBeGreaterThan(0);
  });

  it.each(POLICIES)('matches its host reference on the timing model under %s', (policy) => {
    const r = runKernelScenarioTiming(loadScenario(path, [...small, 'mode=timing']), { configOverrides: ['sm.count=2', `policies.warpScheduler=${policy}`] });
    expect(r.passed).toBe(true);
    expect(r.config.policies.warpScheduler).toEqual(JSON.parse(policy));
    expect(r.engine.pendingWork()).toEqual([]);
    // The policy changes the order of issue, never the work: every warp instruction the
    // functional model executes is issued once. 4 CTAs x 8 warps run the same branch-free
    // iterations, so the count is a multiple of 32.
    expect(r.engine.stats.value('gpu_tot_warp_insts')).toBe(functionalWarpInsts);
    expect(functionalWarpInsts % 32).toBe(0);
  });
});

describe('l1i_bigcode is larger than the 2 KiB L1I', () => {
  it('its loop body spans more than 2048 bytes at 8 bytes per PTX instruction', () => {
    const prepared = prepareKernelScenario(loadScenario(join(SCENARIOS_DIR, 'k-l1i-bigcode.yaml')));
    const fn = prepared.launches[0]!.kernel.entry;
    // The loop: from its label to the backward branch that closes it (the last bra of the PTX).
    const start = fn.labels.get('$L__BB0_2')!;
    const end = fn.instructions.findLastIndex((inst) => inst.opText.startsWith('bra'));
    expect(start).toBeGreaterThan(0);
    expect((end - start + 1) * 8).toBeGreaterThan(2048);
  });
});

/** scenarios/scaled/*.yaml */
const SCALED_DIR = join(SCENARIOS_DIR, 'scaled');
const scaled = readdirSync(SCALED_DIR).filter((f) => f.endsWith('.yaml')).sort();

describe('scenarios/scaled: >= 2 waves of full occupancy on m2090', () => {
  const m2090 = getPreset('m2090');

  it('holds the two synthetic kernels, the big-code kernel and seven library kernels', () => {
    expect(scaled).toEqual([
      'add-x-loops.yaml', 'histogram-smem.yaml', 'l1i-bigcode.yaml', 'matmul-tiled.yaml', 'phase-long4.yaml',
      'phase-msl.yaml', 'reduce-smem.yaml', 'saxpy.yaml', 'stream-x-words.yaml', 'vecadd.yaml',
    ]);
  });

  it.each(scaled)('%s', (file) => {
    const path = join(SCALED_DIR, file);
    const loaded = loadScenario(path);
    expect(loaded.scenario.mode).toBe('timing');
    expect(loaded.scenario.gpu?.preset).toBe('m2090');
    const prepared = prepareKernelScenario(loaded);
    const first = prepared.launches[0]!;
    const regs = estimateRegsPerThread(first);
    expect(first.spec.regsPerThread).toBe(regs);
    const threads = first.kernel.threadsPerCta;
    const perSm = ctasPerSm(m2090, threads, regs, first.kernel.sharedBytes);
    const ctas = first.kernel.grid[0] * first.kernel.grid[1] * first.kernel.grid[2];
    // The description states the CTAs per SM and that the grid is at least two full waves.
    const doc = readScenario(path);
    expect(doc.description).toContain(`${perSm} CTAs per SM`);
    expect(doc.description).toContain(`${regs} registers per thread`);
    expect(ctas).toBeGreaterThanOrEqual(2 * m2090.sm.count * perSm);
  });

  it('the occupancy of the synthetic kernels follows the per-SM limits by hand', () => {
    // 256 threads = 8 warps per CTA. phase_msl: 14 regs -> 448 per warp -> 3584 per CTA -> 9 by
    // registers; 1536 / 256 = 6 by threads: 6. phase_long4: 23 regs -> 736 -> 768 per warp (unit
    // 64) -> 6144 per CTA -> floor(32768 / 6144) = 5.
    expect(ctasPerSm(m2090, 256, 14, 0)).toBe(6);
    expect(ctasPerSm(m2090, 256, 23, 0)).toBe(5);
  });
});
