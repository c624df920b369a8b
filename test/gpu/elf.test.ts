/**
 * ELF warp scheduling on the timing model (issue 13 item 3; paper 004 §3, §3.2; spec
 * `warp-level.md` §2.10, §2.11 items 3 and 7), CI tier: the type B kernel `phase_long4` (32 CTAs
 * of 2 steps) and the type A kernel `phase_msl` (32 CTAs of 2 iterations) on 2 SMs of
 * `gtx480-elf`, under GTO and ELF; ELF's statistics against counts derived from the kernels'
 * code; the statistics of an ELF run replayed exactly by the sleeping issue stage; the policy's
 * options reaching the static pass; library kernels under ELF against their host references.
 * The full-size cycle counts (192 CTAs on 15 SMs) are in the issue report, not asserted here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.ts';
import { gpuConfigSchema } from '../../src/config/schema.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { staticAnalysisOptions } from '../../src/topology/gpu-sm.ts';
import { runTiming, type GpuRun } from './gpu-helpers.ts';

const SCALED = 'scenarios/scaled';
const SMS = 2;
const ELF480 = 'gpu.preset=gtx480-elf';
/** 32 CTAs x 8 warps. */
const WARPS = 256;
const SMALL_LONG4 = [ELF480, 'launches[0].grid=[32,1,1]', 'launches[0].args[2].s32=2'];
const SMALL_MSL = [ELF480, 'launches[0].grid=[32,1,1]', 'launches[0].args[3].s32=2'];

/** A per-SM ISSUE statistic summed over the SMs. */
function sum(run: GpuRun, name: string): number {
  let t = 0;
  for (let i = 0; i < SMS; i++) t += run.stat(`GPU.SM[${i}].ISSUE.${name}`);
  return t;
}

const recalcs = (r: GpuRun) => sum(r, 'elf_recalc_load') + sum(r, 'elf_recalc_branch') + sum(r, 'elf_recalc_other') + sum(r, 'elf_recalc_naive');

describe.each([
  // phase_long4: per step 4 global loads; one backward loop branch (its loop runs `steps` times)
  { kernel: 'phase-long4', over: SMALL_LONG4, loadsPerWarp: 2 * 4, points: 4 + 1 },
  // phase_msl: per iteration the loads of A and B; one backward loop branch
  { kernel: 'phase-msl', over: SMALL_MSL, loadsPerWarp: 2 * 2, points: 2 + 1 },
])('ELF on $kernel (CI size, gtx480-elf)', ({ kernel, over, loadsPerWarp, points }) => {
  const run = (policy: string) => runTiming(join(SCALED, `${kernel}.yaml`), over, [`sm.count=${SMS}`, `policies.warpScheduler=${policy}`]);
  const gto = run('{kind: gto}');
  const elf = run('{kind: elf}');

  it('both runs pass the host reference and finish', () => {
    expect(gto.r.passed).toBe(true);
    expect(elf.r.passed).toBe(true);
    expect(elf.r.engine.pendingWork()).toEqual([]);
    expect(() => gto.stat('GPU.SM[0].ISSUE.elf_decrements')).toThrow(/no statistic/);
  });

  it('updates the WPT once per issued instruction but each warp\'s exit; recalculates on every load and once per loop exit', () => {
    expect(recalcs(elf) + sum(elf, 'elf_decrements')).toBe(elf.stat('gpu_tot_warp_insts') - WARPS);
    expect(sum(elf, 'elf_recalc_load')).toBe(WARPS * loadsPerWarp);
    // 'consistent' (R-E3): the loop branch is a program point scored by its taken path, so only
    // the final not-taken outcome recalculates
    expect(sum(elf, 'elf_recalc_branch')).toBe(WARPS);
    expect(sum(elf, 'elf_recalc_other')).toBe(0);
    expect(sum(elf, 'elf_recalc_naive')).toBe(0);
    // straight-line code between the points: the calculator, and so the WPT, is exact
    expect(sum(elf, 'elf_priority_error')).toBe(0);
    for (let i = 0; i < SMS; i++) {
      expect(elf.stat(`GPU.SM[${i}].ISSUE.elf_pp_before_merge`)).toBe(points);
      expect(elf.stat(`GPU.SM[${i}].ISSUE.elf_pp_loaded`)).toBe(points);
    }
  });

  it('Fig. 8 shape (spec §2.11 item 7): 1 - (loads + branches) / insts <= reduction <= 1', () => {
    const insts = elf.stat('gpu_tot_warp_insts');
    const reduction = 1 - recalcs(elf) / insts;
    expect(reduction).toBeLessThanOrEqual(1);
    // dynamic loads and branches: the counted loads, and the loop branch once per trip (2 trips)
    expect(reduction).toBeGreaterThanOrEqual(1 - (WARPS * loadsPerWarp + WARPS * 2) / insts);
    expect(reduction).toBeGreaterThan(0.9);
  });

  it('changes the schedule but stays within 10% of GTO at this size (measured; see the issue report for full size)', () => {
    expect(elf.stat('gpu_sim_cycle')).not.toBe(gto.stat('gpu_sim_cycle'));
    expect(elf.stat('gpu_sim_cycle')).toBeLessThanOrEqual(1.1 * gto.stat('gpu_sim_cycle'));
  });
});

describe('ELF options reach the static pass (spec §2.7)', () => {
  const long4 = (ws: string) => runTiming(join(SCALED, 'phase-long4.yaml'), SMALL_LONG4, [`sm.count=${SMS}`, `policies.warpScheduler=${ws}`]);

  it('programPoints 2: 5 points merged down to 2 (Algorithm 2), results unchanged', () => {
    const r = long4('{kind: elf, programPoints: 2}');
    expect(r.r.passed).toBe(true);
    expect(r.stat('GPU.SM[0].ISSUE.elf_pp_before_merge')).toBe(5);
    expect(r.stat('GPU.SM[0].ISSUE.elf_pp_loaded')).toBe(2);
  });

  it("recalcRule 'always' recalculates on every update (Fig. 8's naive scheme)", () => {
    const r = long4('{kind: elf, recalcRule: always}');
    expect(r.r.passed).toBe(true);
    expect(sum(r, 'elf_decrements')).toBe(0);
    expect(recalcs(r)).toBe(r.stat('gpu_tot_warp_insts') - WARPS);
    expect(sum(r, 'elf_recalc_naive')).toBeGreaterThan(0);
  });

  it('staticAnalysisOptions carries the ELF fields (defaults 32, 8, backward, consistent) and nothing for other policies', () => {
    const base = getPreset('gtx480-elf')!;
    const withPolicy = (ws: object) => gpuConfigSchema.parse({ ...base, policies: { ...base.policies, warpScheduler: ws } });
    expect(staticAnalysisOptions(withPolicy({ kind: 'elf' })).elf).toEqual({ maxProgramPoints: 32, scoreBits: 8, branches: 'backward', recalcRule: 'consistent' });
    expect(staticAnalysisOptions(withPolicy({ kind: 'elf', programPoints: 48, scoreBits: 6, branches: 'all', recalcRule: 'literal' })).elf).toEqual({ maxProgramPoints: 48, scoreBits: 6, branches: 'all', recalcRule: 'literal' });
    expect(staticAnalysisOptions(withPolicy({ kind: 'gto' })).elf).toBeUndefined();
    expect(() => withPolicy({ kind: 'elf', recalcRule: 'sometimes' })).toThrow();
    expect(() => withPolicy({ kind: 'elf', scoreBits: 17 })).toThrow();
  });
});

describe('the issue stage sleeps under ELF without changing any result', () => {
  it('phase_long4 (CI size) under elf: every statistic equals the every-cycle run', () => {
    const run = (poll: boolean) => {
      const loaded = loadScenario(join(SCALED, 'phase-long4.yaml'), ['mode=timing', ELF480, 'launches[0].grid=[16,1,1]', 'launches[0].args[2].s32=1', 'sampleInterval=1us']);
      const r = runKernelScenarioTiming(loaded, { configOverrides: [`sm.count=${SMS}`, 'policies.warpScheduler={kind: elf}'], pollEveryCycle: poll });
      const json = r.engine.stats.toJSON();
      for (const k of Object.keys(json)) if (k.startsWith('engine.')) delete json[k];
      return json;
    };
    const sleeping = run(false);
    const polling = run(true);
    expect(Object.keys(sleeping).filter((k) => k.includes('.elf_')).length).toBe(SMS * 9);
    expect(sleeping['GPU.SM[0].ISSUE.elf_decrements']).toBeGreaterThan(0);
    expect(sleeping).toEqual(polling);
  });
});

describe('library kernels under ELF pass their references', () => {
  // barriers (reduce_smem), divergent branches and reconvergence pops (bfs_level), calls through a
  // table (op_table), shared-memory atomics (histogram_smem), a straight-line kernel (vecadd),
  // dependent loads (pointer_chase)
  const kernels = ['k-vecadd.yaml', 'k-reduce-smem.yaml', 'k-bfs-level.yaml', 'k-op-table.yaml', 'k-histogram-smem.yaml', 'k-pointer-chase.yaml'];
  it.each(kernels)('%s', (k) => {
    const r = runTiming(join('scenarios', k), [], ['sm.count=2', 'policies.warpScheduler={kind: elf}']);
    expect(r.r.passed).toBe(true);
    expect(r.r.engine.pendingWork()).toEqual([]);
  });

  it('bfs_level and op_table recalculate on reconvergence pops, calls and returns (R-E10)', () => {
    const bfs = runTiming('scenarios/k-bfs-level.yaml', [], ['sm.count=2', 'policies.warpScheduler={kind: elf}']);
    const ops = runTiming('scenarios/k-op-table.yaml', [], ['sm.count=2', 'policies.warpScheduler={kind: elf}']);
    expect(sum(bfs, 'elf_recalc_other') + sum(ops, 'elf_recalc_other')).toBeGreaterThan(0);
  });
});
