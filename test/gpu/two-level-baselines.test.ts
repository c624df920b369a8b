/**
 * Two-level warp schedulers on the timing model (issue 13, item 1; `specs/warp-level.md` §4):
 * - C1: a warp waiting at a barrier leaves the ready queue. A 416-thread CTA is 13 warps: on the
 *   `m2090` preset (2 schedulers, ready queue 6) scheduler 0 supervises 7 of them, so if the 6
 *   ready-queue warps reached `__syncthreads()` and stayed in the ready queue, the 7th would never
 *   enter it and the CTA would never pass the barrier (it deadlocked so before the fix).
 * - C3: GPGPU-Sim's own `two_level_active` (`twoLevelGpgpusim`) runs the same kernels to the same
 *   results.
 * - C11: with `idleStates: considered` the scheduler idle-time states are classified over the
 *   warps the policy offered (the ready queue). With one instruction per issue slot, a scheduler
 *   cycle is then `canIssue` exactly when it issued: `sched_canIssue` equals `warp_insts`
 *   (over every live warp it can only be larger: a ready warp outside the ready queue counts).
 *   Warp states and timing do not depend on the option.
 * - Sleep replay: ISSUE sleeps when nothing can change; every statistic (the scheduler states over
 *   the offered warps, the in-flight loads and cycle classes of C12 included) equals the run that
 *   polls every cycle, also for GPGPU-Sim's two-level lists, which move while warps wait.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';

/** reduce_smem with 13-warp CTAs (416 threads, 4 bytes of shared memory each) on m2090. */
const REDUCE_416 = [
  'mode=timing',
  'gpu={"preset":"m2090","set":[],"extensions":[]}',
  'launches[0].block=[416,1,1]',
  'launches[0].dynamicSharedBytes=1664',
];

function run(policy: string, poll = false, scenario = 'scenarios/k-reduce-smem.yaml', overrides: readonly string[] = REDUCE_416) {
  const r = runKernelScenarioTiming(loadScenario(scenario, [...overrides]), { configOverrides: [`policies.warpScheduler=${policy}`], pollEveryCycle: poll });
  const json = r.engine.stats.toJSON() as Record<string, unknown>;
  const stat = (name: string): number => {
    const v = r.engine.stats.value(name);
    if (v === undefined) throw new Error(`no statistic ${name}`);
    return v;
  };
  return { r, json, stat };
}

/** Sum of a per-SM ISSUE statistic over the 16 SMs of m2090. */
function perSm(stat: (name: string) => number, name: string): number {
  let n = 0;
  for (let sm = 0; sm < 16; sm++) n += stat(`GPU.SM[${sm}].ISSUE.${name}`);
  return n;
}

const TWO_LEVEL = '{"kind":"twoLevel","readyQueueSize":6,"inner":"rr","outer":"rr"}';
const TWO_LEVEL_CONSIDERED = '{"kind":"twoLevel","readyQueueSize":6,"inner":"rr","outer":"rr","idleStates":"considered"}';
const GPGPUSIM = '{"kind":"twoLevelGpgpusim","readyQueueSize":6}';
const GPGPUSIM_CONSIDERED = '{"kind":"twoLevelGpgpusim","readyQueueSize":6,"idleStates":"considered"}';

describe('two-level schedulers on m2090 (C1, C3, C11)', () => {
  it('C1: 13-warp CTAs with __syncthreads() finish under twoLevel and twoLevelGpgpusim, with correct results', () => {
    for (const policy of [TWO_LEVEL, GPGPUSIM]) {
      const { r, stat } = run(policy);
      expect(r.passed).toBe(true);
      expect(r.config.sm.schedulers).toBe(2);
      // 16 CTAs of the first launch and 1 of the second, each run to completion.
      expect(stat('gpu_tot_ctas_done')).toBe(17);
    }
  });

  it('C11: over the offered warps, canIssue cycles are exactly the issue slots that issued; timing and warp states do not change', () => {
    const all = run(TWO_LEVEL);
    const offered = run(TWO_LEVEL_CONSIDERED);
    expect(offered.stat('gpu_sim_cycle')).toBe(all.stat('gpu_sim_cycle'));
    for (const st of ['warp_state_memScoreboard', 'warp_state_waiting', 'warp_state_canIssueAlu']) expect(perSm(offered.stat, st)).toBe(perSm(all.stat, st));
    const states = ['noInstruction', 'notReady', 'pipelineStall', 'canIssue'];
    for (let sm = 0; sm < 16; sm++) {
      const p = `GPU.SM[${sm}].ISSUE.`;
      // m2090 issues one instruction per slot: a canIssue cycle over the offered warps issues one.
      expect(offered.stat(`${p}sched_canIssue`)).toBe(offered.stat(`${p}warp_insts`));
      expect(all.stat(`${p}sched_canIssue`)).toBeGreaterThanOrEqual(all.stat(`${p}warp_insts`));
      // The same scheduler-cycles are classified, only differently.
      const sum = (x: typeof all) => states.reduce((a, n) => a + x.stat(`${p}sched_${n}`), 0);
      expect(sum(offered)).toBe(sum(all));
    }
    // The barrier waits of this kernel make some ready warps sit outside the ready queue.
    expect(perSm(all.stat, 'sched_canIssue')).toBeGreaterThan(perSm(offered.stat, 'sched_canIssue'));
  });

  it('C11 for twoLevelGpgpusim: canIssue cycles equal the issue slots that issued', () => {
    const offered = run(GPGPUSIM_CONSIDERED);
    expect(offered.r.passed).toBe(true);
    for (let sm = 0; sm < 16; sm++) expect(offered.stat(`GPU.SM[${sm}].ISSUE.sched_canIssue`)).toBe(offered.stat(`GPU.SM[${sm}].ISSUE.warp_insts`));
  });

  it.each([
    ['twoLevel, idle states over the offered warps', TWO_LEVEL_CONSIDERED],
    ['twoLevelGpgpusim', GPGPUSIM],
    ['twoLevelGpgpusim, idle states over the offered warps', GPGPUSIM_CONSIDERED],
  ])('%s: every statistic of the sleeping issue stage equals the every-cycle run', (_name, policy) => {
    const strip = (j: Record<string, unknown>) => {
      for (const k of Object.keys(j)) if (k.startsWith('engine.')) delete j[k];
      return j;
    };
    const sleeping = strip(run(policy, false).json);
    const polling = strip(run(policy, true).json);
    expect(sleeping).toEqual(polling);
  });

  it('the memory-bound pointer chase: sleeping equals polling under twoLevelGpgpusim (lists rotate while warps wait)', () => {
    const ov = ['mode=timing', 'gpu={"preset":"m2090","set":[],"extensions":[]}'];
    const strip = (j: Record<string, unknown>) => {
      for (const k of Object.keys(j)) if (k.startsWith('engine.')) delete j[k];
      return j;
    };
    const a = run(GPGPUSIM_CONSIDERED, false, 'scenarios/k-pointer-chase.yaml', ov);
    const b = run(GPGPUSIM_CONSIDERED, true, 'scenarios/k-pointer-chase.yaml', ov);
    expect(a.r.passed).toBe(true);
    expect(strip(a.json)).toEqual(strip(b.json));
  });
});
