/**
 * What a warp-scheduler policy is told on the timing model (C15 of `specs/warp-level.md` §4):
 * `SchedulerWarps.pc` / `.fn` hold each warp's next PC, and `issued()` gets an `IssueEvent` with
 * the issued instruction's PC, next PC and outcome. A spy wrapping the built-in GTO records them
 * on vecadd with one CTA of 2 warps (a guarded body: two loads, an add, a store, no loop): every
 * warp's first issue is PC 0 of function 0; every issue's next PC is what `warps.pc` then shows;
 * each issue's PC is the previous issue's next PC; the last one exits (next PC -1); each warp
 * issues exactly six loads (four kernel parameters, a[i] and b[i]).
 */
import { describe, expect, it } from 'vitest';
import { registerWarpSchedulerPolicy, warpSchedulerPolicyFactory, type IssueEvent, type WarpSchedulerPolicyFactory } from '../../src/model/sm/warp-scheduler.ts';
import { runTiming, type GpuRun } from './gpu-helpers.ts';

interface Seen {
  readonly warp: number;
  readonly pc: number;
  readonly fn: number;
  readonly nextPc: number;
  readonly pcAfter: number;
  readonly isLoad: boolean;
  readonly exited: boolean;
}

/** Runs vecadd (1 CTA of 64 threads, 1 SM) with GTO wrapped by a spy; returns what the spy saw. */
function spyRun(): { seen: Seen[]; r: GpuRun } {
  const seen: Seen[] = [];
  const gto = warpSchedulerPolicyFactory('gto')!;
  const spy: WarpSchedulerPolicyFactory = (o, where) => {
    const inner = gto(o, where);
    return {
      name: 'gto',
      pureOrder: true,
      order: (warps, out) => inner.order(warps, out),
      issued(warps, slot, longLatency, event?: IssueEvent) {
        inner.issued(warps, slot, longLatency, event);
        seen.push({ warp: warps.warpIds[slot]!, pc: event!.pc, fn: event!.functionIndex, nextPc: event!.nextPc, pcAfter: warps.pc![slot]!, isLoad: event!.isLoad, exited: event!.exited });
      },
      reset: () => inner.reset(),
    };
  };
  // The config schema lists the policy kinds it accepts: the spy stands in for gto for one run.
  registerWarpSchedulerPolicy('gto', spy, true);
  try {
    const r = runTiming('scenarios/k-vecadd.yaml', ['launches[0].grid=[1,1,1]', 'launches[0].block=[64,1,1]', 'checks=[]'], ['sm.count=1', 'policies.warpScheduler={"kind":"gto"}']);
    return { seen, r };
  } finally {
    registerWarpSchedulerPolicy('gto', gto, true);
  }
}

describe('policy interface: PCs and issue events (C15)', () => {
  it("a policy sees each warp's next PC and each issued instruction's PC, next PC and kind", () => {
    const { seen, r } = spyRun();
    expect(r.r.passed).toBe(true);
    const byWarp = new Map<number, Seen[]>();
    for (const x of seen) byWarp.set(x.warp, [...(byWarp.get(x.warp) ?? []), x]);
    expect([...byWarp.keys()].sort()).toEqual([0, 1]);
    for (const list of byWarp.values()) {
      expect(list[0]!.pc).toBe(0);
      expect(list.every((x) => x.fn === 0)).toBe(true);
      for (const x of list) expect(x.pcAfter).toBe(x.nextPc);
      for (let i = 1; i < list.length; i++) expect(list[i]!.pc).toBe(list[i - 1]!.nextPc);
      const last = list[list.length - 1]!;
      expect(last.exited).toBe(true);
      expect(last.nextPc).toBe(-1);
      // 4 ld.param (the kernel arguments) and 2 ld.global (a[i], b[i]).
      expect(list.filter((x) => x.isLoad).length).toBe(6);
    }
    expect(seen.length).toBe(r.stat('gpu_tot_warp_insts'));
    expect(warpSchedulerPolicyFactory('gto')).not.toBeUndefined();
  });
});
