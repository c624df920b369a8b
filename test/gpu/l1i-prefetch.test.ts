/**
 * L1I next-line prefetch gated by MSHR occupancy (paper 004 §3.5; specs/warp-level.md R-E9,
 * §2.11 check 5) on `l1i_bigcode`, whose 4 KiB loop body does not fit the 2 KiB L1I, at CI size
 * (8 CTAs of 2 iterations on 2 SMs of gtx480-elf).
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';

const SMALL = ['launches[0].grid=[8,1,1]', 'launches[0].args[2].s32=2', 'gpu={preset: gtx480-elf}'];

function run(threshold: number | null, poll = false) {
  const config = ['sm.count=2', ...(threshold === null ? [] : [`l1i.prefetch={kind: nextLine, mshrThreshold: ${threshold}}`])];
  const r = runKernelScenarioTiming(loadScenario('scenarios/scaled/l1i-bigcode.yaml', SMALL), { configOverrides: config, pollEveryCycle: poll });
  const sum = (suffix: string) => {
    let n = 0;
    for (const [k, v] of Object.entries(r.engine.stats.toJSON())) if (k.endsWith(suffix) && typeof v === 'number') n += v;
    return n;
  };
  return { r, sum, cycles: r.engine.stats.value('gpu_sim_cycle')! };
}

describe('L1I next-line prefetch (004 §3.5)', () => {
  const none = run(null);
  const t16 = run(16);

  it('passes the host reference with and without prefetch', () => {
    expect(none.r.passed).toBe(true);
    expect(t16.r.passed).toBe(true);
  });

  it('cuts fetch stalls on code larger than the L1I and is not slower (check 5)', () => {
    expect(none.sum('l1i_prefetch_issued')).toBe(0); // no prefetcher: no statistic
    expect(t16.sum('l1i_prefetch_issued')).toBeGreaterThan(0);
    expect(t16.sum('ISSUE.stall_fetch')).toBeLessThan(none.sum('ISSUE.stall_fetch'));
    expect(t16.cycles).toBeLessThanOrEqual(none.cycles);
    // every prefetch is used by a demand access (in time or late) or never touched
    expect(t16.sum('l1i_prefetch_useful') + t16.sum('l1i_prefetch_late')).toBeLessThanOrEqual(t16.sum('l1i_prefetch_issued'));
  });

  it('the MSHR threshold gates: many prefetches held back at 4, none at 24', () => {
    const t4 = run(4);
    const t24 = run(24);
    expect(t4.sum('l1i_prefetch_gated')).toBeGreaterThan(0);
    // gtx480-elf: 8 L1I + 64 L1D MSHR entries; at 24 the two seldom hold that many
    expect(t24.sum('l1i_prefetch_gated')).toBeLessThan(t4.sum('l1i_prefetch_gated') / 10);
    expect(t24.sum('l1i_prefetch_issued')).toBeGreaterThan(t4.sum('l1i_prefetch_issued'));
  });

  it('every statistic equals the every-cycle run (sleep replay)', () => {
    const strip = (j: Record<string, unknown>) => Object.fromEntries(Object.entries(j).filter(([k]) => !k.startsWith('engine.')));
    expect(strip(t16.r.engine.stats.toJSON())).toEqual(strip(run(16, true).r.engine.stats.toJSON()));
  });
});
