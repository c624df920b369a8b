/**
 * Load-to-use latency of the timing model, measured with a one-thread pointer chase
 * (scenarios/kernels/pointer-chase.cu through scenarios/gpu/chase-stride.yaml) and compared with
 * what the gtx480 preset implies, unit by unit.
 *
 * Method: two runs with N and 2N chase steps; (cycles(2N) - cycles(N)) / N is the time of one
 * step, with launch, cold-start and exit costs cancelled. A step is one dependent `ld.global`
 * plus its address arithmetic, so
 *
 *   step = loadToUse + nonMemory,
 *
 * loadToUse = cycles from the `ld` issuing to its dependent instruction issuing.
 *
 * nonMemory (derived from the PTX loop, unrolled 4x, and the issue stage on one warp): a RAW
 * dependence on an ALU result costs the unit latency (4 on gtx480) plus the operand-collector
 * pipeline (o = OPERAND_PIPELINE_CYCLES = 6: ID_OC, collector allocation, bank read, OC_EX,
 * result port, write-back), r = 4 + 6 = 10 cycles. Per step, after the load writes back:
 * cvt -> add.s64 (RAW, r) -> mul.wide (independent, next cycle: 1) -> add.s64 (RAW on mul.wide,
 * int.mul latency 4 + o = r) -> ld (RAW, r) = 3r + 1 = 31 cycles. Per iteration (4 steps) two
 * extras: the 2-entry iBuffer runs dry before the second step's mul.wide, which then waits for a
 * refetch (ISSUE -> FETCH -> DECODE -> ISSUE, 1 cycle each = 3 cycles instead of 1: +2); and the
 * loop tail of the 4th step is cvt, add +r, add.s32 +3 (refetch), setp +r (RAW), bra +r (RAW),
 * mul.wide +3 (refetch at the branch target), add +r, ld +r = 5r + 6 = 56 cycles instead of 31:
 * +25. So nonMemory = (4 x 31 + 2 + 25) / 4 = 37.75 cycles per step.
 *
 * loadToUse, hop by hop (links are 1 cycle unless stated; interconnect links carry 40-byte
 * flits, a packet of b bytes arriving ceil(b / 40) - 1 cycles after its head):
 * - L1D hit: ISSUE -> LSU 1, LSU -> L1D 1, L1D hit latency (l1d.latencyCycles = 35),
 *   L1D -> LSU 1, LSU -> ISSUE 1: 39.
 * - L2 hit (L1D miss): ISSUE -> LSU 1, LSU -> L1D 1; the L1D sends the miss down in the cycle
 *   it looks it up (the model's L1D applies `latencyCycles` to hits only: a stated choice of
 *   machines/l1d, where GPGPU-Sim 4 also delays misses by -gpgpu_l1_latency); L1D -> ICNT
 *   interconnect.latencyCycles 3 (an 8-byte read header: 1 flit); ICNT -> L2 1; ROP delay
 *   memPartitions.ropLatencyCycles 120 (L2 clock = core clock on gtx480), lookup and hit answer
 *   in that cycle; L2 -> ICNT 3 + 3 (136-byte response: 4 flits); ICNT -> L1D 1 + 3; the fill
 *   answers at once: L1D -> LSU 1, LSU -> ISSUE 1. Total 4 + 3 + 1 + 120 + 6 + 4 = 138.
 * - DRAM (L2 miss): the L2-hit path plus, on the DRAM clock (924 MHz): L2 -> DRAM 1, the fixed
 *   DRAM latency (memPartitions.dramLatencyCycles = 100 core cycles = ceil(100 x 924 / 700) = 132
 *   DRAM cycles), then the channel: a 128-byte line is 2 atoms of 64 bytes (2 chips x 4 bytes x
 *   burst 8); row hit: RD, second RD tCCDL = 3 later (same bank group), data tCL = 12 + BL/r =
 *   8 / 4 = 2 after it: 17; row conflict: PRE, ACT after tRP = 12, RD after tRCD = 12: 17 + 24.
 *   Then DRAM -> L2 1 core cycle; the fill answers in its cycle. Row hit: 138 + (1 + 132 + 17)
 *   x 700 / 924 + 1 = 252.64; row conflict: + 24 x 700 / 924 = 270.82 (clock-crossing alignment
 *   adds up to about a cycle more).
 */
import { describe, expect, it } from 'vitest';
import { runTiming, type GpuRun } from './gpu-helpers.ts';
import { OPERAND_PIPELINE_CYCLES } from '../../src/topology/gpu-sm.ts';

const CHASE = 'scenarios/gpu/chase-stride.yaml';

/** Runs the chase over `count` u32 elements with next[i] = (i + stride) mod count, for `steps` steps. */
function chase(count: number, stride: number, steps: number): GpuRun {
  const run = runTiming(CHASE, [`buffers[0].count=${count}`, `buffers[0].init.modulus=${count}`, `buffers[0].init.start=${stride}`, `launches[0].args[2].u32=${steps}`]);
  expect(run.r.passed).toBe(true); // the chase visited the right indices
  return run;
}

/** Per-step cycles from N and 2N steps, and the differences of some counters. */
function perStep(count: number, stride: number, n: number, counters: readonly string[]) {
  const a = chase(count, stride, n);
  const b = chase(count, stride, 2 * n);
  const delta = Object.fromEntries(counters.map((c) => [c, b.stat(c) - a.stat(c)]));
  return { cycles: (b.stat('gpu_sim_cycle') - a.stat('gpu_sim_cycle')) / n, delta, config: a.r.config };
}

const RAW = 4 + OPERAND_PIPELINE_CYCLES; // ALU latency + operand pipeline, see the file comment
const NON_MEMORY = (4 * (3 * RAW + 1) + 2 + (5 * RAW + 6 - (3 * RAW + 1))) / 4; // 37.75, see the file comment

describe('pointer-chase latency on gtx480 matches the unit timing (within 10%)', () => {
  it('L1D hit: 32 lines (4 KB) chased with a 128-byte stride stay in the 16 KB L1D', () => {
    // 1024 words, stride 32 words = 128 bytes (one line): a cycle of 32 lines. N = 64 steps: the
    // first 32 miss (cold), the rest and all of the second run's extra 64 steps hit.
    const m = perStep(1024, 32, 64, ['gpu_l1d_misses', 'GPU.SM[0].L1D.l1d_hits']);
    expect(m.delta).toEqual({ gpu_l1d_misses: 0, 'GPU.SM[0].L1D.l1d_hits': 64 });
    const c = m.config;
    const loadToUse = 1 + 1 + c.l1d.latencyCycles + 1 + 1; // 39
    const expected = loadToUse + NON_MEMORY; // 76.75
    expect(expected).toBe(76.75);
    expect(Math.abs(m.cycles - expected) / expected).toBeLessThan(0.1);
  });

  it('L2 hit: 256 lines (32 KB) overflow the L1D but fit the 768 KB L2', () => {
    // 8192 words, 128-byte stride: 256 lines = 8 per L1D set (4 ways, LRU, cyclic): every access
    // misses the L1D. N = 256 steps is the cold lap (DRAM); the second run's extra lap hits in L2.
    const m = perStep(8192, 32, 256, ['gpu_l1d_misses', 'gpu_l2_hits', 'gpu_l2_misses']);
    expect(m.delta).toEqual({ gpu_l1d_misses: 256, gpu_l2_hits: 256, gpu_l2_misses: 0 });
    const c = m.config;
    const icnt = c.interconnect.latencyCycles;
    const flits = (bytes: number) => Math.ceil(bytes / c.interconnect.flitBytes);
    expect(c.clocks.l2).toBe(c.clocks.core); // ROP cycles are core cycles here
    const loadToUse = 1 + 1 + (icnt + flits(8) - 1) + 1 + c.memPartitions.ropLatencyCycles + (icnt + flits(136) - 1) + (1 + flits(136) - 1) + 1 + 1; // 138
    expect(loadToUse).toBe(138);
    const expected = loadToUse + NON_MEMORY; // 175.75
    expect(Math.abs(m.cycles - expected) / expected).toBeLessThan(0.1);
  });

  /** DRAM load-to-use in core cycles for a channel service time of `service` DRAM cycles. */
  function dramLoadToUse(c: GpuRun['r']['config'], service: number): number {
    const dramPerCore = c.clocks.dram / c.clocks.core; // 1.32
    const fixed = Math.ceil(c.memPartitions.dramLatencyCycles * dramPerCore); // 132 DRAM cycles
    return 138 + (1 + fixed + service) / dramPerCore + 1;
  }

  it('DRAM row hit: a cold sequential lap, every line a new L2 miss in an already open row', () => {
    // 8192 words, 128-byte stride, N = 64 steps inside the first (cold) lap: both runs miss L2 on
    // every step. The lap's 32 KB touch row 0 of 2 banks per channel; those 12 activations
    // happen in the first 24 lines, so steps 64..127 are all row hits.
    const m = perStep(8192, 32, 64, ['gpu_l2_misses', 'gpu_dram_reads', 'gpu_dram_row_hits', 'gpu_dram_row_misses']);
    expect(m.delta).toEqual({ gpu_l2_misses: 64, gpu_dram_reads: 64, gpu_dram_row_hits: 64, gpu_dram_row_misses: 0 });
    const t = m.config.dram.timing;
    const service = t.tCCDL! + t.tCL + m.config.dram.burstLength / m.config.dram.dataCommandFreqRatio; // 17
    const expected = dramLoadToUse(m.config, service) + NON_MEMORY; // 290.39
    expect(expected).toBeCloseTo(290.39, 2);
    expect(Math.abs(m.cycles - expected) / expected).toBeLessThan(0.1);
  });

  it('DRAM row conflict: a 384 KB stride stays in one channel and bank and changes row every step', () => {
    // Global stride 6 channels x 64 KB = 393216 bytes = 98304 words: same channel (partition bits
    // from bit 8 cycle every 6 x 256 B), same bank, local address + 64 KB = row + 1 (row bits
    // from bit 16 of the channel-local address). 16 rows: every step a cold L2 miss and a row
    // conflict (the previous row is still open: PRE, ACT, RD).
    const m = perStep(16 * 98304, 98304, 8, ['gpu_l2_misses', 'gpu_dram_row_hits', 'gpu_dram_row_misses']);
    expect(m.delta).toEqual({ gpu_l2_misses: 8, gpu_dram_row_hits: 0, gpu_dram_row_misses: 8 });
    const t = m.config.dram.timing;
    const service = t.tRP + t.tRCD + t.tCCDL! + t.tCL + m.config.dram.burstLength / m.config.dram.dataCommandFreqRatio; // 41
    const expected = dramLoadToUse(m.config, service) + NON_MEMORY; // 308.57
    expect(Math.abs(m.cycles - expected) / expected).toBeLessThan(0.1);
  });
});
