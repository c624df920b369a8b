/**
 * Expected values are worked out by hand with the CUDA Occupancy Calculator's rules for compute
 * capability 2.x (Fermi): warp size 32, 48 warps / 1536 threads / 8 CTAs per SM, 32768
 * registers allocated per warp in units of 64, warp allocation granularity 2, 49152 B of shared
 * memory allocated in units of 128 B. Each case spells out the arithmetic.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError, SimulationError } from '../../../src/errors.ts';
import {
  FERMI_LIMITS,
  assertLaunchFits,
  ceilTo,
  checkLaunch,
  floorTo,
  nSlot,
  occupancy,
  stateBufferUsageOf,
  stateBuffersOf,
} from '../../../src/model/sm/occupancy.ts';
import type { GpuLimits, LaunchRequest, SmLimits } from '../../../src/model/sm/occupancy.ts';

describe('occupancy (CUDA Occupancy Calculator, Fermi)', () => {
  it('256 threads, 16 regs, no smem: 6 CTAs, limited by threads', () => {
    // warps/CTA = 256/32 = 8; threads: floor(48/8) = 6.
    // registers: 16*32 = 512 per warp (a multiple of 64); floor(32768/512) = 64 warps -> 64/8 = 8.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 256, registersPerThread: 16, sharedMemPerCta: 0 });
    expect(r.ctasPerSm).toBe(6);
    expect(r.limitedBy).toBe('threads');
    expect(r.limiters).toEqual(['threads']);
    expect(r.byThreads).toBe(6);
    expect(r.byRegisters).toBe(8);
    expect(r.bySharedMem).toBe(Infinity);
    expect(r.activeWarps).toBe(48);
    expect(r.occupancy).toBe(1);
  });

  it('256 threads, 20 regs: 6 CTAs; threads and registers both allow exactly 6', () => {
    // registers: 20*32 = 640 per warp; floor(32768/640) = 51 warps, rounded down to the warp
    // allocation granularity 2 -> 50; floor(50/8) = 6. Threads also give 6: reported first.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 256, registersPerThread: 20, sharedMemPerCta: 0 });
    expect(r.ctasPerSm).toBe(6);
    expect(r.limitedBy).toBe('threads');
    expect(r.limiters).toEqual(['threads', 'registers']);
    expect(r.registersPerWarp).toBe(640);
    expect(r.registersPerCta).toBe(5120);
  });

  it('256 threads, 63 regs: 2 CTAs, limited by registers', () => {
    // 63*32 = 2016 -> rounded up to 64: 2048 per warp; floor(32768/2048) = 16 warps -> 16/8 = 2.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 256, registersPerThread: 63, sharedMemPerCta: 0 });
    expect(r.ctasPerSm).toBe(2);
    expect(r.limitedBy).toBe('registers');
    expect(r.registersPerWarp).toBe(2048);
    expect(r.activeWarps).toBe(16);
    expect(r.occupancy).toBeCloseTo(16 / 48, 12);
  });

  it('the 64-register allocation unit costs a CTA: 256 threads, 21 regs -> 5, not 6', () => {
    // 21*32 = 672 -> 704 per warp; floor(32768/704) = 46 (even) -> floor(46/8) = 5.
    // Without rounding, 32768 / (21*256) = 6.09 would allow 6 (and threads allow 6).
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 256, registersPerThread: 21, sharedMemPerCta: 0 });
    expect(r.registersPerWarp).toBe(704);
    expect(r.byThreads).toBe(6);
    expect(r.byRegisters).toBe(5);
    expect(r.ctasPerSm).toBe(5);
    expect(r.limitedBy).toBe('registers');
  });

  it('the warp allocation granularity costs a CTA: 416 threads, 26 regs -> 2, not 3', () => {
    // warps/CTA = 13; 26*32 = 832 per warp (13 x 64); floor(32768/832) = 39 warps, rounded
    // down to a multiple of 2 -> 38; floor(38/13) = 2. Threads: floor(48/13) = 3.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 416, registersPerThread: 26, sharedMemPerCta: 0 });
    expect(r.warpsPerCta).toBe(13);
    expect(r.byThreads).toBe(3);
    expect(r.byRegisters).toBe(2);
    expect(r.ctasPerSm).toBe(2);
    expect(r.limitedBy).toBe('registers');
  });

  it('128 threads, 10 regs, 12000 B smem: 4 CTAs, limited by shared memory', () => {
    // smem: 12000 -> 12032 (94 x 128); floor(49152/12032) = 4.
    // threads: floor(48/4) = 12; registers: 320 per warp, floor(32768/320) = 102 -> 102/4 = 25.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 128, registersPerThread: 10, sharedMemPerCta: 12000 });
    expect(r.sharedMemPerCta).toBe(12032);
    expect(r.bySharedMem).toBe(4);
    expect(r.byRegisters).toBe(25);
    expect(r.ctasPerSm).toBe(4);
    expect(r.limitedBy).toBe('sharedMem');
  });

  it('the 128-byte shared memory unit costs a CTA: 9800 B -> 4, not 5', () => {
    // 9800 -> 9856 (77 x 128); floor(49152/9856) = 4; unrounded floor(49152/9800) = 5.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 128, registersPerThread: 8, sharedMemPerCta: 9800 });
    expect(r.bySharedMem).toBe(4);
    expect(r.ctasPerSm).toBe(4);
    expect(r.limitedBy).toBe('sharedMem');
  });

  it('64 threads, 10 regs: 8 CTAs, limited by CTA slots', () => {
    // threads: floor(48/2) = 24; registers: floor(102/2) = 51; CTA slots: 8.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 64, registersPerThread: 10, sharedMemPerCta: 0 });
    expect(r.ctasPerSm).toBe(8);
    expect(r.limitedBy).toBe('ctaSlots');
    expect(r.activeWarps).toBe(16);
  });

  it('rounds a partial warp up: 100 threads occupy 4 warps', () => {
    // 100 threads -> 4 warps; floor(48/4) = 12 -> CTA slots (8) limit.
    const r = occupancy(FERMI_LIMITS, { threadsPerCta: 100, registersPerThread: 0, sharedMemPerCta: 0 });
    expect(r.warpsPerCta).toBe(4);
    expect(r.byThreads).toBe(12);
    expect(r.byRegisters).toBe(Infinity);
    expect(r.ctasPerSm).toBe(8);
  });

  it('supports per-CTA register allocation (compute 1.3 style)', () => {
    // Compute 1.3: 16384 registers, allocation unit 512 per CTA, warps rounded up to 2,
    // 32 warps / 1024 threads / 8 CTAs per SM, 16 KB smem in 512 B units.
    const cc13: SmLimits = {
      warpSize: 32, maxThreadsPerSm: 1024, maxWarpsPerSm: 32, maxCtasPerSm: 8,
      registersPerSm: 16384, registerAllocUnit: 512, registerAllocation: 'cta', warpAllocGranularity: 2,
      sharedMemPerSm: 16384, sharedMemAllocUnit: 512,
    };
    // 96 threads = 3 warps -> 4 (granularity 2); 4 x 32 x 17 = 2176 -> 2560 (5 x 512);
    // floor(16384/2560) = 6. Threads allow floor(32/3) = 10, slots 8.
    const r = occupancy(cc13, { threadsPerCta: 96, registersPerThread: 17, sharedMemPerCta: 0 });
    expect(r.registersPerCta).toBe(2560);
    expect(r.ctasPerSm).toBe(6);
    expect(r.limitedBy).toBe('registers');
  });

  it('rejects malformed usage with InputError naming the field', () => {
    try {
      occupancy(FERMI_LIMITS, { threadsPerCta: 0, registersPerThread: 8, sharedMemPerCta: 0 }, { file: 'k.yaml' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).field).toBe('kernel.threadsPerCta');
    }
    expect(() => occupancy(FERMI_LIMITS, { threadsPerCta: 32, registersPerThread: 1.5, sharedMemPerCta: 0 })).toThrow(InputError);
    expect(() => occupancy({ ...FERMI_LIMITS, registerAllocation: 'thread' as 'warp' }, { threadsPerCta: 32, registersPerThread: 1, sharedMemPerCta: 0 })).toThrow(InputError);
  });

  it('never exceeds any single resource (random Fermi kernels)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 49152 }), (B, r, s) => {
        const o = occupancy(FERMI_LIMITS, { threadsPerCta: B, registersPerThread: r, sharedMemPerCta: s });
        const n = o.ctasPerSm;
        const b = Math.ceil(B / 32);
        expect(n).toBeLessThanOrEqual(8);
        expect(n * b).toBeLessThanOrEqual(48);
        expect(n * ceilTo(s, 128)).toBeLessThanOrEqual(49152);
        // Registers of n CTAs fit the two 16384-register halves of the file.
        const perWarp = ceilTo(r * 32, 64);
        if (perWarp > 0) expect(Math.ceil((n * b) / 2) * perWarp).toBeLessThanOrEqual(16384);
        // One more CTA would break the limiting resource.
        const more = n + 1;
        const breaks = more > 8 || more * b > 48 || more * ceilTo(s, 128) > 49152 || (perWarp > 0 && Math.ceil((more * b) / 2) * perWarp > 16384);
        expect(breaks).toBe(true);
      }),
    );
  });
});

describe('N_slot (GPUDIAG eq. 3.3)', () => {
  it('matches the calculator except where the warp allocation granularity bites', () => {
    // 416 threads, 26 regs: b = 13, r = 832 per warp.
    // N_slot = min(8, floor(48/13) = 3, -, floor(32768 / (13 x 832)) = floor(3.03) = 3) = 3,
    // while the calculator gives 2 (38 usable warps). Ties go to the earlier term.
    const k = { threadsPerCta: 416, registersPerThread: 26, sharedMemPerCta: 0 };
    const r = nSlot(stateBuffersOf(FERMI_LIMITS), stateBufferUsageOf(FERMI_LIMITS, k));
    expect(r.nSlot).toBe(3);
    expect(r.limitedBy).toBe('warpSlots');
    expect(occupancy(FERMI_LIMITS, k).ctasPerSm).toBe(2);
  });

  it('is limited by registers, shared memory and barrier slots in turn', () => {
    const buffers = stateBuffersOf(FERMI_LIMITS);
    // 256 threads, 63 regs: floor(32768 / (8 x 2048)) = 2.
    const regs = nSlot(buffers, { warpsPerCta: 8, sharedMemPerCta: 0, registersPerWarp: [63 * 32] });
    expect(regs).toEqual({ nSlot: 2, limitedBy: 'registers', registerType: 0 });
    // 128 threads, 9800 B: floor(49152 / 9856) = 4.
    const smem = nSlot(buffers, { warpsPerCta: 4, sharedMemPerCta: 9800, registersPerWarp: [0] });
    expect(smem).toEqual({ nSlot: 4, limitedBy: 'sharedMem', registerType: -1 });
    // 64 threads, nothing else: N_1 = 8.
    const slots = nSlot(buffers, { warpsPerCta: 2, sharedMemPerCta: 0, registersPerWarp: [320] });
    expect(slots).toEqual({ nSlot: 8, limitedBy: 'barrierSlots', registerType: -1 });
  });

  it('handles several register types (AMD scalar and vector registers)', () => {
    // Type 0: ceil(100, 16) = 112 -> floor(3200 / (4 x 112)) = 7; type 1: floor(65536 / (4 x 2048)) = 8;
    // warp slots floor(40/4) = 10; N_1 = 16.
    const r = nSlot(
      { barrierSlots: 16, warpSlots: 40, sharedMem: 65536, sharedMemUnit: 256, registers: [3200, 65536], registerUnits: [16, 256] },
      { warpsPerCta: 4, sharedMemPerCta: 0, registersPerWarp: [100, 2048] },
    );
    expect(r).toEqual({ nSlot: 7, limitedBy: 'registers', registerType: 0 });
    expect(() => nSlot(
      { barrierSlots: 16, warpSlots: 40, sharedMem: 65536, sharedMemUnit: 256, registers: [3200, 65536], registerUnits: [16, 256] },
      { warpsPerCta: 4, sharedMemPerCta: 0, registersPerWarp: [100] },
    )).toThrow(InputError);
  });

  it('rounds helpers as 003 footnote 1 defines them', () => {
    expect(ceilTo(2016, 64)).toBe(2048);
    expect(ceilTo(2048, 64)).toBe(2048);
    expect(floorTo(39, 2)).toBe(38);
  });
});

describe('limit checker (GPUDIAG eq. 3.1)', () => {
  const ok: LaunchRequest = { gridDim: [100], ctaDim: [256], registersPerThread: 20, sharedMemPerCta: 0 };

  function refused(limits: GpuLimits, launch: Partial<LaunchRequest>): { limit: string; value: number; max: number } {
    const r = checkLaunch(limits, { ...ok, ...launch });
    if (r.ok) throw new Error('expected a refusal');
    expect(r.message).toContain(r.limit);
    return { limit: r.limit, value: r.value, max: r.max };
  }

  it('accepts a launch that fits, including an exactly full register file', () => {
    expect(checkLaunch(FERMI_LIMITS, ok)).toEqual({ ok: true });
    // 1024 threads x 32 regs = 32 warps x 1024 = 32768 = L(R/B) = registers per SM.
    expect(checkLaunch(FERMI_LIMITS, { gridDim: [1], ctaDim: [32, 32], registersPerThread: 32, sharedMemPerCta: 49152 })).toEqual({ ok: true });
  });

  it('refuses each impossible launch with the limit it breaks', () => {
    expect(refused(FERMI_LIMITS, { ctaDim: [1025] })).toEqual({ limit: 'threadsPerCta', value: 1025, max: 1024 });
    // 64 x 4 x 8 = 2048 threads: every dimension is legal, the product is not.
    expect(refused(FERMI_LIMITS, { ctaDim: [64, 4, 8] })).toEqual({ limit: 'threadsPerCta', value: 2048, max: 1024 });
    expect(refused(FERMI_LIMITS, { ctaDim: [1, 1, 65] })).toEqual({ limit: 'ctaDim.z', value: 65, max: 64 });
    expect(refused(FERMI_LIMITS, { gridDim: [65536] })).toEqual({ limit: 'gridDim.x', value: 65536, max: 65535 });
    expect(refused(FERMI_LIMITS, { gridDim: [1, 70000] })).toEqual({ limit: 'gridDim.y', value: 70000, max: 65535 });
    expect(refused({ ...FERMI_LIMITS, maxThreadsPerGrid: 1_000_000 }, { gridDim: [4000] })).toEqual({ limit: 'threadsPerGrid', value: 1_024_000, max: 1_000_000 });
    // 49153 B -> 49280 allocated (385 x 128) > 49152.
    expect(refused(FERMI_LIMITS, { sharedMemPerCta: 49153 })).toEqual({ limit: 'sharedMemPerCta', value: 49280, max: 49152 });
    expect(refused(FERMI_LIMITS, { registersPerThread: 64 })).toEqual({ limit: 'registersPerThread', value: 64, max: 63 });
    // 1024 threads x 33 regs: 1056 -> 1088 per warp x 32 warps = 34816 > 32768.
    expect(refused(FERMI_LIMITS, { ctaDim: [1024], registersPerThread: 33 })).toEqual({ limit: 'registersPerCta', value: 34816, max: 32768 });
  });

  it('refuses a CTA that cannot fit one SM (with per-launch limits raised past the SM)', () => {
    const loose: GpuLimits = { ...FERMI_LIMITS, maxThreadsPerCta: 4096, maxCtaDim: [4096, 1024, 64], maxRegistersPerCta: 1 << 20, maxSharedMemPerCta: 1 << 20 };
    // 2048 threads = 64 warps > 48.
    expect(refused(loose, { ctaDim: [2048], registersPerThread: 0 })).toEqual({ limit: 'warpsPerSm', value: 64, max: 48 });
    // 64 warp slots but only 1536 threads.
    expect(refused({ ...loose, maxWarpsPerSm: 64 }, { ctaDim: [2048], registersPerThread: 0 })).toEqual({ limit: 'threadsPerSm', value: 2048, max: 1536 });
    // 1024 threads x 40 regs: 1280 per warp x 32 = 40960; usable: floor(32768/1280) = 25 -> 24 warps
    // -> 24 x 1280 = 30720 registers.
    expect(refused(loose, { ctaDim: [1024], registersPerThread: 40 })).toEqual({ limit: 'registersPerSm', value: 40960, max: 30720 });
    // 50000 B -> 50048 > 49152.
    expect(refused(loose, { sharedMemPerCta: 50000 })).toEqual({ limit: 'sharedMemPerSm', value: 50048, max: 49152 });
  });

  it('throws SimulationError with the violation from assertLaunchFits', () => {
    expect(() => assertLaunchFits(FERMI_LIMITS, ok)).not.toThrow();
    try {
      assertLaunchFits(FERMI_LIMITS, { ...ok, registersPerThread: 100 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SimulationError);
      expect((e as SimulationError).details).toMatchObject({ ok: false, limit: 'registersPerThread', value: 100, max: 63 });
    }
  });

  it('treats a malformed launch as bad input', () => {
    expect(() => checkLaunch(FERMI_LIMITS, { ...ok, ctaDim: [0] })).toThrow(InputError);
    expect(() => checkLaunch(FERMI_LIMITS, { ...ok, gridDim: [1, 1, 1, 1] })).toThrow(InputError);
    expect(() => checkLaunch(FERMI_LIMITS, { ...ok, sharedMemPerCta: -4 })).toThrow(InputError);
    expect(() => checkLaunch({ ...FERMI_LIMITS, maxCtaDim: [1024, 1024] as unknown as [number, number, number] }, ok)).toThrow(InputError);
  });

  it('accepts exactly the launches with occupancy >= 1 when per-launch limits are generous', () => {
    const loose: GpuLimits = { ...FERMI_LIMITS, maxRegistersPerThread: 255, maxRegistersPerCta: 1 << 20, maxSharedMemPerCta: 1 << 20 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 70000 }), (B, r, s) => {
        const fits = checkLaunch(loose, { gridDim: [1], ctaDim: [B], registersPerThread: r, sharedMemPerCta: s }).ok;
        const occ = occupancy(loose, { threadsPerCta: B, registersPerThread: r, sharedMemPerCta: s }).ctasPerSm;
        expect(fits).toBe(occ >= 1);
      }),
    );
  });
});
