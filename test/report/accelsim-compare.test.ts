/**
 * The Accel-Sim <-> warpstate mapping table and the comparison (issue 10 item 3), on the real
 * Accel-Sim logs and hand-made warpstate statistics (no simulation here).
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { ACCELSIM_PER_KERNEL_STATS, readAccelSimLog } from '../../src/report/accelsim-log.ts';
import { ACCELSIM_STAT_MAP, compareWithAccelSim, dramAtomBytes, formatComparison, formatDifference, relativeDifferencePct } from '../../src/report/accelsim-compare.ts';

const R = 'data/accelsim-reference';

describe('the mapping table', () => {
  it('pairs kernel-scope rows only with statistics GPGPU-Sim resets per kernel, and names each row once', () => {
    for (const p of ACCELSIM_STAT_MAP) {
      if (p.scope === 'kernel') {
        for (const n of p.accelsim.sum) expect(ACCELSIM_PER_KERNEL_STATS.has(n), n).toBe(true);
        for (const n of p.warpstate ?? []) expect(n.startsWith('kernel[<k>].'), n).toBe(true);
      } else {
        for (const n of p.accelsim.sum) expect(ACCELSIM_PER_KERNEL_STATS.has(n), n).toBe(false);
      }
    }
    const names = ACCELSIM_STAT_MAP.map((p) => p.stat);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the DRAM atom of the GTX 1080 log: busW 4 x BL 8 x 1 chip = 32 bytes', () => {
    expect(dramAtomBytes(readAccelSimLog(`${R}/vectoradd-100-32.accelsim.log`))).toBe(32);
  });

  it('relative differences and their rendering', () => {
    expect(relativeDifferencePct(1282, 641)).toBe(-50);
    expect(relativeDifferencePct(200, 250)).toBe(25);
    expect(relativeDifferencePct(0, 0)).toBe(0);
    expect(relativeDifferencePct(0, 3)).toBeNull();
    expect(relativeDifferencePct(NaN, 3)).toBeNull();
    expect(relativeDifferencePct(5, null)).toBeNull();
    expect(formatDifference(-50)).toBe('-50.0%');
    expect(formatDifference(25)).toBe('+25.0%');
    expect(formatDifference(-0.01)).toBe('0.0%');
    expect(formatDifference(null)).toBe('-');
  });
});

describe('compareWithAccelSim', () => {
  const vecadd = readAccelSimLog(`${R}/vectoradd-100-32.accelsim.log`);
  // Hand-made warpstate statistics: two SMs and two L2 slices, so the [*] sums add two instances.
  const stats = {
    gpu_sim_cycle: 1000,
    gpu_sim_insn: 10516,
    gpu_ipc: 10.516,
    gpu_tot_warp_insts: 344,
    gpu_tot_ctas_done: 1,
    'kernel[0].gpu_sim_cycle': 641,
    'kernel[0].gpu_sim_insn': 10516,
    'kernel[0].gpu_ipc': 16.4,
    'GPU.SM[0].FETCH.l1i_accesses': 100,
    'GPU.SM[1].FETCH.l1i_accesses': 88,
    'GPU.SM[0].FETCH.l1i_misses': 2,
    'GPU.SM[1].FETCH.l1i_misses': 0,
    'GPU.SM[0].FETCH.l1i_pending_hits': 34,
    'GPU.SM[1].FETCH.l1i_pending_hits': 0,
    gpu_l2_accesses: 14,
    gpu_l2_misses: 12,
    'GPU.L2[0].l2_hit_reserved': 1,
    'GPU.L2[1].l2_hit_reserved': 2,
    gpu_dram_bytes: 2208 / 2,
    'GPU.SM[0].ISSUE.alu_load': { times: [], values: [] },
  };

  it('the last block pairs every row; [*] sums instances, kernel[<k>] is launch uid - 1', () => {
    const c = compareWithAccelSim(vecadd, stats);
    expect(c.kernel).toEqual({ index: 1, name: '_Z6vecAddIfEvPT_S1_S1_i', launchUid: 1, blocks: 1, last: true });
    expect(c.warpstateKernel).toBe(0);
    expect(c.warnings).toEqual([]);
    const row = (s: string) => c.rows.find((r) => r.stat === s)!;
    expect(row('gpu_sim_cycle')).toMatchObject({ accelsim: 1282, warpstate: 641, differencePct: -50, warpstateSource: 'kernel[0].gpu_sim_cycle' });
    expect(row('gpu_tot_sim_cycle')).toMatchObject({ accelsim: 1282, warpstate: 1000, warpstateSource: 'gpu_sim_cycle' });
    expect(row('gpgpu_n_tot_w_icount')).toMatchObject({ accelsim: 344, warpstate: 344, differencePct: 0 });
    expect(row('L1I_total_cache_accesses')).toMatchObject({ accelsim: 188, warpstate: 188, differencePct: 0 });
    // GPGPU-Sim's 36 L1I misses include the 34 MSHR_HIT merges: warpstate's 2 misses + 34 pending hits.
    expect(row('L1I_total_cache_misses')).toMatchObject({ accelsim: 36, warpstate: 36 });
    expect(row('L2_total_cache_pending_hits')).toMatchObject({ accelsim: 0, warpstate: 3, differencePct: null });
    // 14 L2 accesses, 2 of them instruction fetches (INST_ACC_R TOTAL_ACCESS); warpstate: 14 minus
    // one line read per L1I miss (2 + 0).
    expect(row('L2_total_cache_accesses')).toMatchObject({ accelsim: 14, warpstate: 14, differencePct: 0 });
    expect(row('L2 data accesses')).toMatchObject({ accelsim: 12, warpstate: 12, warpstateSource: 'gpu_l2_accesses - GPU.SM[*].FETCH.l1i_misses' });
    // (56 + 13) atoms x 32 bytes = 2208.
    expect(row('dram bytes')).toMatchObject({ accelsim: 2208, warpstate: 1104, differencePct: -50 });
    expect(row('gpgpu_n_mem_{read,write}_{global,local}').accelsim).toBe(8 + 4);
    // A breakdown type with no accesses prints no TOTAL_ACCESS line: it counts 0.
    expect(row('L2_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS]')).toMatchObject({ accelsim: 8, warpstate: null, differencePct: null, warpstateSource: null });
    // Statistics the warpstate map lacks (the LSU's) are null, not 0.
    expect(row('gpgpu_n_mem_{read,write}_{global,local}').warpstate).toBeNull();
  });

  it('an earlier block pairs only the per-kernel rows', () => {
    const log = readAccelSimLog(`${R}/k-reduce-smem.accelsim.log`);
    const two = { gpu_sim_cycle: 4000, gpu_sim_insn: 211119, 'kernel[0].gpu_sim_cycle': 3000, 'kernel[0].gpu_sim_insn': 209248, 'kernel[1].gpu_sim_cycle': 900 };
    const c = compareWithAccelSim(log, two, 1);
    expect(c.kernel.last).toBe(false);
    expect(c.warnings).toEqual(["block 1 is not the log's last: cumulative statistics (scope run) are shown for Accel-Sim only"]);
    const row = (s: string) => c.rows.find((r) => r.stat === s)!;
    expect(row('gpu_sim_cycle')).toMatchObject({ accelsim: 3815, warpstate: 3000 });
    expect(row('gpu_sim_insn')).toMatchObject({ accelsim: 209248, warpstate: 209248, differencePct: 0 });
    expect(row('gpu_tot_sim_cycle')).toMatchObject({ accelsim: 3815, warpstate: null, warpstateSource: null });
    const last = compareWithAccelSim(log, two);
    expect(last.warpstateKernel).toBe(1);
    expect(last.rows.find((r) => r.stat === 'gpu_sim_cycle')).toMatchObject({ accelsim: 1671, warpstate: 900 });
    expect(last.rows.find((r) => r.stat === 'gpu_tot_sim_cycle')).toMatchObject({ accelsim: 5486, warpstate: 4000 });
  });

  it('warns when the two runs hold different numbers of kernels', () => {
    const c = compareWithAccelSim(vecadd, { gpu_sim_cycle: 1 });
    expect(c.warnings).toContain(`${R}/vectoradd-100-32.accelsim.log reports 1 kernel(s), the warpstate statistics 0: whole-run totals cover different work`);
  });

  it('--kernel outside the log is an input error', () => {
    expect(() => compareWithAccelSim(vecadd, stats, 2)).toThrow(InputError);
    expect(() => compareWithAccelSim(vecadd, stats, 2)).toThrow(`--kernel: ${R}/vectoradd-100-32.accelsim.log has 1 kernel statistics block(s) (1 to 1), got 2`);
  });

  it('the table: one aligned line per row, - for a missing side, nan as printed', () => {
    const text = formatComparison(compareWithAccelSim(vecadd, stats), 'test');
    const lines = text.split('\n');
    expect(lines[0]).toBe('# test');
    expect(lines[3]).toMatch(/^statistic\s+Accel-Sim\s+warpstate\s+difference\s+note$/);
    expect(lines.some((l) => /^gpu_sim_cycle\s+1282\s+641\s+-50\.0%\s+a GPGPU-Sim warp/.test(l))).toBe(true);
    expect(text).toMatch(/\nL2_cache_stats_breakdown\[GLOBAL_ACC_W\]\[MISS\]\s+4\s+-\s+-\s+warpstate counts/);
    expect(lines.filter((l) => l !== '' && !l.startsWith('#')).length).toBe(2 + ACCELSIM_STAT_MAP.length);
  });
});
