/**
 * PATS on the timing model (issue 13 item 2; specs/warp-level.md §1.10), CI tier: the type A
 * kernel `phase_msl` scaled down to 32 CTAs of 2 iterations on 2 SMs of m2090 (6 CTAs per SM:
 * 32 CTAs are 2.7 waves), and library kernels under both PATS policies. The full-size comparison
 * (192 CTAs on 16 SMs, both kernel types, every policy) is the sweep
 * `scenarios/sweeps/pats.yaml`, outside `npm test`.
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
const SMALL_MSL = ['launches[0].grid=[32,1,1]', 'launches[0].args[3].s32=2'];

/** Scheduler idle share (000 §3.5.3 states 1-3 over all slots) summed over the SMs. */
function idleShare(run: GpuRun, sms: number): number {
  let idle = 0;
  let all = 0;
  for (let i = 0; i < sms; i++) {
    const s = (k: string) => run.stat(`GPU.SM[${i}].ISSUE.sched_${k}`);
    idle += s('noInstruction') + s('notReady') + s('pipelineStall');
    all += s('noInstruction') + s('notReady') + s('pipelineStall') + s('canIssue');
  }
  return idle / all;
}

describe('PATS on the type A kernel phase_msl (CI size)', () => {
  const run = (policy: string) => runTiming(join(SCALED, 'phase-msl.yaml'), SMALL_MSL, ['sm.count=2', `policies.warpScheduler=${policy}`]);
  const gto = run('{kind: gto}');
  const lrr = run('{kind: lrr}');
  const pats = run('{kind: pats}');
  const cycles = (r: GpuRun) => r.stat('gpu_sim_cycle');

  it('every run passes the host reference', () => {
    for (const r of [gto, lrr, pats]) expect(r.r.passed).toBe(true);
  });

  it('is type A (GTO <= 0.98 LRR) and single-level PATS is within 1% of the better of the two (spec §1.10 checks 1, 2)', () => {
    expect(cycles(gto)).toBeLessThanOrEqual(0.98 * cycles(lrr));
    expect(cycles(pats)).toBeLessThanOrEqual(1.01 * Math.min(cycles(gto), cycles(lrr)));
  });

  it('idle time follows (Fig. 3.8, check 6): idle(gto) < idle(lrr) and idle(pats) < idle(lrr)', () => {
    expect(idleShare(gto, 2)).toBeLessThan(idleShare(lrr, 2));
    expect(idleShare(pats, 2)).toBeLessThan(idleShare(lrr, 2));
  });

  it('two-level PATS is within 1% of the better two-level baseline with the same inner policy (check 4)', () => {
    const rr = run('{kind: twoLevel, readyQueueSize: 6, inner: rr, outer: rr}');
    const byAge = run('{kind: twoLevel, readyQueueSize: 6, inner: rr, outer: gto}');
    const tl = run('{kind: patsTwoLevel, readyQueueSize: 6}');
    for (const r of [rr, byAge, tl]) expect(r.r.passed).toBe(true);
    expect(cycles(tl)).toBeLessThanOrEqual(1.01 * Math.min(cycles(rr), cycles(byAge)));
  });
});

describe('library kernels under the PATS policies', () => {
  // barriers (reduce_smem), divergent branches (bfs_level), calls through a table (op_table),
  // shared-memory atomics (histogram_smem), and a straight-line kernel (vecadd)
  const kernels = ['k-vecadd.yaml', 'k-reduce-smem.yaml', 'k-bfs-level.yaml', 'k-op-table.yaml', 'k-histogram-smem.yaml'];
  it.each(kernels.flatMap((k) => ['{kind: pats}', '{kind: patsTwoLevel, readyQueueSize: 6, inner: gto}'].map((p) => [k, p])))('%s passes its reference under %s', (k, policy) => {
    const r = runTiming(join('scenarios', k), [], ['sm.count=2', `policies.warpScheduler=${policy}`]);
    expect(r.r.passed).toBe(true);
    expect(r.r.engine.pendingWork()).toEqual([]);
  });
});

describe('the issue stage sleeps under PATS without changing any result', () => {
  it.each(['{kind: pats}', '{kind: patsTwoLevel, readyQueueSize: 6}'])('phase_msl (CI size) under %s: every statistic equals the every-cycle run', (policy) => {
    const run = (poll: boolean) => {
      const loaded = loadScenario(join(SCALED, 'phase-msl.yaml'), ['launches[0].grid=[16,1,1]', 'launches[0].args[3].s32=1', 'sampleInterval=1us']);
      const r = runKernelScenarioTiming(loaded, { configOverrides: ['sm.count=2', `policies.warpScheduler=${policy}`], pollEveryCycle: poll });
      const json = r.engine.stats.toJSON();
      for (const k of Object.keys(json)) if (k.startsWith('engine.')) delete json[k];
      return json;
    };
    expect(run(false)).toEqual(run(true));
  });
});

describe('phase tables follow the config (spec R-P2, R-P3)', () => {
  const m2090 = getPreset('m2090')!;
  const withPolicy = (ws: object) => gpuConfigSchema.parse({ ...m2090, policies: { ...m2090.policies, warpScheduler: ws } });

  it('pipeline latencies by default: the issue interval and the opcode-class latencies of the config', () => {
    const o = staticAnalysisOptions(withPolicy({ kind: 'pats' }));
    expect(o.maxPhaseDistance).toBeUndefined();
    expect(o.phaseLatency).toMatchObject({ kind: 'pipeline', issueIntervalCycles: 2 });
    // m2090: fp add 4 cycles, int mul 4 (config show m2090)
    const pl = o.phaseLatency as { opClasses: Record<string, { latency: number }> };
    expect(pl.opClasses.alu!.latency).toBe(4);
    expect(pl.opClasses.intMul!.latency).toBe(4);
  });

  it("phaseLatency 'unit' and maxPhaseDistance pass through", () => {
    const o = staticAnalysisOptions(withPolicy({ kind: 'patsTwoLevel', readyQueueSize: 6, phaseLatency: 'unit', maxPhaseDistance: 511 }));
    expect(o).toEqual({ phaseLatency: 'unit', maxPhaseDistance: 511 });
  });
});
