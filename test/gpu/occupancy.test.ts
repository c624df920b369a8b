/**
 * Occupancy: the CTAs resident at once on an SM (`GPU.SM[0].ISSUE.max_resident_ctas`) equal the
 * CUDA occupancy calculation for the gtx480 preset, for a kernel limited by each of the four
 * resources (000 §2.2.2), and agree with `occupancy()` (src/model/sm/occupancy.ts).
 *
 * gtx480 per SM: 48 warps / 1536 threads, 8 CTA slots, 32768 registers allocated per warp in
 * units of 64, 49152 bytes of shared memory allocated in units of 128 bytes.
 * `sm.count=2` keeps the runs small; it changes no per-SM resource.
 */
import { describe, expect, it } from 'vitest';
import { gpuLimits } from '../../src/topology/gpu.ts';
import { occupancy } from '../../src/model/sm/occupancy.ts';
import { runTiming } from './gpu-helpers.ts';

interface Case {
  readonly name: string;
  readonly threads: number;
  readonly regs: number;
  readonly dynShared: number;
  /** CTAs per SM computed by hand (comment shows the arithmetic). */
  readonly expected: number;
  readonly limiter: 'threads' | 'ctaSlots' | 'registers' | 'sharedMem';
}

const CASES: readonly Case[] = [
  // 512 threads = 16 warps: floor(48 / 16) = 3; registers 16 x 32 = 512 per warp -> 64 warps -> 4; slots 8.
  { name: 'threads', threads: 512, regs: 16, dynShared: 0, expected: 3, limiter: 'threads' },
  // 256 threads = 8 warps: 32 x 32 = 1024 registers per warp -> 32768 / 1024 = 32 warps -> 4 CTAs; threads 6; slots 8.
  { name: 'registers', threads: 256, regs: 32, dynShared: 0, expected: 4, limiter: 'registers' },
  // 64 threads = 2 warps, 12000 bytes of dynamic shared memory -> 12032 allocated -> floor(49152 / 12032) = 4;
  // threads 24, registers 64 warps / 2 = 32, slots 8.
  { name: 'shared memory', threads: 64, regs: 16, dynShared: 12000, expected: 4, limiter: 'sharedMem' },
  // 32 threads = 1 warp: threads 48, registers 64 warps -> 64, so the 8 CTA slots limit.
  { name: 'CTA slots', threads: 32, regs: 16, dynShared: 0, expected: 8, limiter: 'ctaSlots' },
];

describe('occupancy on gtx480 equals the CUDA occupancy calculation', () => {
  it.each(CASES)('limited by $name: $expected CTAs per SM', (c) => {
    const sms = 2;
    const grid = 2 * sms * c.expected + 1; // more CTAs than fit at once, so every SM fills up
    const n = grid * c.threads;
    const run = runTiming(
      'scenarios/k-vecadd.yaml',
      [
        `buffers[0].count=${n}`,
        `buffers[1].count=${n}`,
        `buffers[2].count=${n}`,
        `launches[0].grid=[${grid},1,1]`,
        `launches[0].block=[${c.threads},1,1]`,
        `launches[0].regsPerThread=${c.regs}`,
        `launches[0].dynamicSharedBytes=${c.dynShared}`,
        `launches[0].args[3].s32=${n}`,
      ],
      [`sm.count=${sms}`],
    );
    expect(run.r.passed).toBe(true);
    expect(run.stat('GPU.SM[0].ISSUE.max_resident_ctas')).toBe(c.expected);
    expect(run.stat('GPU.SM[1].ISSUE.max_resident_ctas')).toBe(c.expected);
    expect(run.stat('GPU.SM[0].ISSUE.ctas_done') + run.stat('GPU.SM[1].ISSUE.ctas_done')).toBe(grid);
    // Cross-check with the occupancy model on the same limits.
    const occ = occupancy(gpuLimits(run.r.config), { threadsPerCta: c.threads, registersPerThread: c.regs, sharedMemPerCta: c.dynShared });
    expect(occ.ctasPerSm).toBe(c.expected);
    expect(occ.limitedBy).toBe(c.limiter);
  });
});
