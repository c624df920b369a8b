/**
 * Configuration changes move the timing model the expected way, and results stay correct:
 * - fewer L1D MSHRs -> more L1D reservation failures on a memory-heavy kernel;
 * - fewer SMs -> more cycles on a compute-bound kernel;
 * - a smaller L2 -> more DRAM reads on a kernel that re-reads its data.
 */
import { describe, expect, it } from 'vitest';
import { runTiming } from './gpu-helpers.ts';

describe('config changes move behaviour the expected way (gtx480)', () => {
  it('fewer L1D MSHRs: more reservation failures (mshrFull) on stream_x_words; same result', () => {
    const scen = ['buffers[0].count=24576', 'buffers[1].count=24576', 'launches[0].grid=[16,1,1]', 'launches[0].args[2].s32=3', 'launches[0].regsPerThread=16'];
    const base = runTiming('scenarios/k-stream-x-words.yaml', scen, ['sm.count=2']);
    const few = runTiming('scenarios/k-stream-x-words.yaml', scen, ['sm.count=2', 'l1d.mshrEntries=4']);
    expect(base.r.passed).toBe(true);
    expect(few.r.passed).toBe(true);
    // Each SM has up to 6 CTAs x 8 warps x 3 coalesced loads (128 B each, one line per warp
    // load) = 144 distinct lines in flight: 4 MSHRs must refuse far more often than 64.
    expect(few.stat('gpu_l1d_res_fail_mshrFull')).toBeGreaterThan(2 * base.stat('gpu_l1d_res_fail_mshrFull') + 100);
    expect(few.stat('gpu_l1d_res_fail')).toBeGreaterThan(base.stat('gpu_l1d_res_fail'));
    // Same accesses either way (a reservation failure is not an access) and a slower run.
    expect(few.stat('gpu_l1d_accesses')).toBe(base.stat('gpu_l1d_accesses'));
    expect(few.stat('gpu_sim_cycle')).toBeGreaterThan(base.stat('gpu_sim_cycle'));
  });

  it('fewer SMs: more cycles on add_x_loops (compute bound); same results', () => {
    const all = runTiming('scenarios/k-add-x-loops.yaml', [], []);
    const two = runTiming('scenarios/k-add-x-loops.yaml', [], ['sm.count=2']);
    expect(all.r.passed).toBe(true);
    expect(two.r.passed).toBe(true);
    expect(all.r.config.sm.count).toBe(15);
    // 16 CTAs of 8 warps per launch: on 15 SMs nearly every CTA has an SM to itself (one SM gets
    // two); on 2 SMs each SM runs 8 CTAs, at most 6 at once (48 warps), with 2 schedulers
    // issuing for all of them. The issue rate per SM bounds the run: many more cycles.
    expect(two.stat('gpu_sim_cycle')).toBeGreaterThan(2 * all.stat('gpu_sim_cycle'));
    expect(two.stat('gpu_sim_insn')).toBe(all.stat('gpu_sim_insn'));
  });

  it('smaller L2: more DRAM reads on a pointer chase that re-reads 32 KB; same result', () => {
    // Two laps over 256 lines (32 KB): with the 768 KB L2 the second lap hits in L2; with
    // 2 sets x 8 ways x 128 B = 2 KB per slice (24 KB over 12 slices) it cannot hold the lap,
    // and LRU over a cyclic walk misses every time.
    const scen = ['buffers[0].count=8192', 'buffers[0].init.modulus=8192', 'buffers[0].init.start=32', 'launches[0].args[2].u32=512'];
    const big = runTiming('scenarios/gpu/chase-stride.yaml', scen);
    const small = runTiming('scenarios/gpu/chase-stride.yaml', scen, ['l2.sets=2']);
    expect(big.r.passed).toBe(true);
    expect(small.r.passed).toBe(true);
    // 256 cold line reads + the 2 result stores' write-allocate fetches + the kernel's code:
    // pointer_chase has 59 instructions at 16 bytes each from the program-memory base, so
    // ceil(59 x 16 / 128) = 8 instruction lines, each read from DRAM once (cold) by the first
    // SM's L1I miss; the other SMs' misses hit in the L2.
    expect(big.stat('gpu_dram_reads')).toBe(256 + 2 + 8);
    expect(small.stat('gpu_dram_reads')).toBeGreaterThanOrEqual(512);
    expect(small.stat('gpu_l2_misses')).toBeGreaterThan(big.stat('gpu_l2_misses'));
    expect(small.stat('gpu_sim_cycle')).toBeGreaterThan(big.stat('gpu_sim_cycle'));
  });
});
