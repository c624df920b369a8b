/**
 * CTA occupancy of an SM and the launch limit checker.
 *
 * Three calculations:
 * - {@link occupancy}: CTAs per SM as the CUDA Occupancy Calculator computes them, limited by
 *   threads (warp slots), CTA slots, registers and shared memory, with the allocation
 *   granularities as parameters. These are the four resources the CTA scheduler checks before
 *   launching a CTA on an SM (000 §2.2.2).
 * - {@link nSlot}: GPUDIAG's N_slot, eq. 3.3 of paper 003 (§3.1.2): the number of concurrently
 *   schedulable blocks given the state-buffer sizes N_1 (barrier slots), N_2 (warp slots), S
 *   (shared memory) and R_i (register files of type i).
 * - {@link checkLaunch}: GPUDIAG's limit checker, eq. 3.1 of paper 003 (§3.1.1), plus the check
 *   that one CTA fits an SM at all; an impossible launch is refused with the limit it breaks.
 *
 * Notation of 003: B threads per block (CTA), G blocks per grid, w warp size, b = ceil(B/w) warps
 * per CTA, s shared-memory bytes per CTA, r_i registers of type i per warp, `ceil(a, u)` = a
 * rounded up to a multiple of u.
 *
 * Register allocation (CUDA Occupancy Calculator, "GPU data" sheet):
 * - granularity `warp` (compute 2.x and later): registers are allocated per warp, `ceil(r x w,
 *   registerAllocUnit)` each; the warps an SM can hold for register reasons,
 *   `floor(registersPerSm / thatPerWarp)`, are rounded down to a multiple of the warp allocation
 *   granularity (on Fermi 2: the register file is split between the two scheduler partitions);
 *   CTAs = floor(those warps / b).
 * - granularity `cta` (compute 1.x): per CTA, `ceil(ceil(b, warpAllocGranularity) x w x r,
 *   registerAllocUnit)`; CTAs = floor(registersPerSm / that).
 *
 * Fermi (compute capability 2.0/2.1) values of the calculator, used by {@link FERMI_LIMITS}:
 * 32 threads per warp, 48 warps / 1536 threads / 8 CTAs per SM, 32768 registers per SM allocated
 * per warp in units of 64, warp allocation granularity 2, at most 63 registers per thread,
 * 49152 bytes of shared memory per SM (48 KB configuration) allocated in units of 128 bytes, at
 * most 1024 threads per CTA, CTA dimensions 1024 x 1024 x 64, grid dimensions 65535 each.
 *
 * Nothing here is on the per-cycle path; results are plain objects.
 */
import { InputError, SimulationError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import { PARAMS_LOCATION, requireInt, requireOneOf } from './validate.ts';

/** How registers are allocated (see the module comment). */
export type RegisterAllocation = 'warp' | 'cta';

/** Per-SM resources (the "GPU data" of the CUDA Occupancy Calculator; 003's state buffers). */
export interface SmLimits {
  /** Threads per warp, w. */
  readonly warpSize: number;
  /** Resident threads per SM. */
  readonly maxThreadsPerSm: number;
  /** Resident warps per SM (003's N_2, warp slots). */
  readonly maxWarpsPerSm: number;
  /** Resident CTAs per SM (003's N_1, barrier slots / CTA slots). */
  readonly maxCtasPerSm: number;
  /** 32-bit registers per SM (003's R). */
  readonly registersPerSm: number;
  /** Register allocation unit, in registers (003's r_min). */
  readonly registerAllocUnit: number;
  /** Register allocation granularity. */
  readonly registerAllocation: RegisterAllocation;
  /** Warps are counted in multiples of this for register allocation (see the module comment). */
  readonly warpAllocGranularity: number;
  /** Shared memory per SM, bytes (003's S). */
  readonly sharedMemPerSm: number;
  /** Shared memory allocation unit, bytes (003's s_min). */
  readonly sharedMemAllocUnit: number;
}

/** Per-launch limits of eq. 3.1 (CUDA "Technical Specifications per Compute Capability"). */
export interface LaunchLimits {
  /** L(T/B): threads per CTA. */
  readonly maxThreadsPerCta: number;
  /** L(T/G): threads per grid (`Infinity` when the architecture sets none). */
  readonly maxThreadsPerGrid: number;
  /** L(S/B): shared memory per CTA, bytes. */
  readonly maxSharedMemPerCta: number;
  /** L(R/T): registers per thread. */
  readonly maxRegistersPerThread: number;
  /** L(R/B): registers per CTA. */
  readonly maxRegistersPerCta: number;
  /** Largest CTA dimensions x, y, z. */
  readonly maxCtaDim: readonly [number, number, number];
  /** Largest grid dimensions x, y, z. */
  readonly maxGridDim: readonly [number, number, number];
}

/** All limits of one GPU. */
export interface GpuLimits extends SmLimits, LaunchLimits {}

/** Fermi (compute 2.x) values of the CUDA Occupancy Calculator (see the module comment). */
export const FERMI_LIMITS: GpuLimits = Object.freeze({
  warpSize: 32,
  maxThreadsPerSm: 1536,
  maxWarpsPerSm: 48,
  maxCtasPerSm: 8,
  registersPerSm: 32768,
  registerAllocUnit: 64,
  registerAllocation: 'warp',
  warpAllocGranularity: 2,
  sharedMemPerSm: 49152,
  sharedMemAllocUnit: 128,
  maxThreadsPerCta: 1024,
  maxThreadsPerGrid: Infinity,
  maxSharedMemPerCta: 49152,
  maxRegistersPerThread: 63,
  maxRegistersPerCta: 32768,
  maxCtaDim: Object.freeze([1024, 1024, 64]) as readonly [number, number, number],
  maxGridDim: Object.freeze([65535, 65535, 65535]) as readonly [number, number, number],
});

/** What one CTA of a kernel uses. */
export interface KernelResources {
  /** B: threads per CTA. Integer >= 1. */
  readonly threadsPerCta: number;
  /** Registers per thread (as `ptxas -v` reports). Integer >= 0. */
  readonly registersPerThread: number;
  /** s: shared memory per CTA, static + dynamic, bytes. Integer >= 0. */
  readonly sharedMemPerCta: number;
}

/** The resources that can limit CTAs per SM, in the order ties are reported. */
export type OccupancyLimiter = 'threads' | 'ctaSlots' | 'registers' | 'sharedMem';

/** Result of {@link occupancy}. */
export interface OccupancyResult {
  /** Resident CTAs per SM (0 when one CTA does not fit). */
  readonly ctasPerSm: number;
  /** The resource that limits it; on a tie the first of `threads, ctaSlots, registers, sharedMem`. */
  readonly limitedBy: OccupancyLimiter;
  /** Every resource whose own limit equals {@link ctasPerSm}, in that order. */
  readonly limiters: readonly OccupancyLimiter[];
  /** CTAs allowed by warp/thread slots. */
  readonly byThreads: number;
  /** CTAs allowed by CTA slots. */
  readonly byCtaSlots: number;
  /** CTAs allowed by registers (`Infinity` when the kernel uses none). */
  readonly byRegisters: number;
  /** CTAs allowed by shared memory (`Infinity` when the kernel uses none). */
  readonly bySharedMem: number;
  /** b: warps per CTA. */
  readonly warpsPerCta: number;
  /** Registers allocated per warp (`warp` granularity) or 0 (`cta` granularity). */
  readonly registersPerWarp: number;
  /** Registers allocated per CTA. */
  readonly registersPerCta: number;
  /** Shared memory allocated per CTA, bytes. */
  readonly sharedMemPerCta: number;
  /** Resident warps per SM. */
  readonly activeWarps: number;
  /** activeWarps / maxWarpsPerSm, in [0, 1]. */
  readonly occupancy: number;
}

/** `a` rounded up to a multiple of `unit` (003's `ceil(a, unit)`). */
export function ceilTo(a: number, unit: number): number {
  return Math.ceil(a / unit) * unit;
}

/** `a` rounded down to a multiple of `unit` (003's `floor(a, unit)`). */
export function floorTo(a: number, unit: number): number {
  return Math.floor(a / unit) * unit;
}

/**
 * Checks every field of `limits`.
 *
 * @throws InputError naming the bad field.
 */
export function validateSmLimits(limits: SmLimits, where: SourceLocation = PARAMS_LOCATION): void {
  requireInt(limits.warpSize, 'sm.warpSize', 1, 1024, where);
  requireInt(limits.maxThreadsPerSm, 'sm.maxThreadsPerSm', 1, undefined, where);
  requireInt(limits.maxWarpsPerSm, 'sm.maxWarpsPerSm', 1, undefined, where);
  requireInt(limits.maxCtasPerSm, 'sm.maxCtasPerSm', 1, undefined, where);
  requireInt(limits.registersPerSm, 'sm.registersPerSm', 1, undefined, where);
  requireInt(limits.registerAllocUnit, 'sm.registerAllocUnit', 1, undefined, where);
  requireOneOf(limits.registerAllocation, 'sm.registerAllocation', ['warp', 'cta'], where);
  requireInt(limits.warpAllocGranularity, 'sm.warpAllocGranularity', 1, undefined, where);
  requireInt(limits.sharedMemPerSm, 'sm.sharedMemPerSm', 0, undefined, where);
  requireInt(limits.sharedMemAllocUnit, 'sm.sharedMemAllocUnit', 1, undefined, where);
}

/**
 * Checks every field of `limits` (`maxThreadsPerGrid` may be `Infinity`).
 *
 * @throws InputError naming the bad field.
 */
export function validateLaunchLimits(limits: LaunchLimits, where: SourceLocation = PARAMS_LOCATION): void {
  requireInt(limits.maxThreadsPerCta, 'launchLimits.maxThreadsPerCta', 1, undefined, where);
  if (limits.maxThreadsPerGrid !== Infinity) requireInt(limits.maxThreadsPerGrid, 'launchLimits.maxThreadsPerGrid', 1, undefined, where);
  requireInt(limits.maxSharedMemPerCta, 'launchLimits.maxSharedMemPerCta', 0, undefined, where);
  requireInt(limits.maxRegistersPerThread, 'launchLimits.maxRegistersPerThread', 0, undefined, where);
  requireInt(limits.maxRegistersPerCta, 'launchLimits.maxRegistersPerCta', 0, undefined, where);
  for (let i = 0; i < 3; i++) {
    requireInt(limits.maxCtaDim?.[i], `launchLimits.maxCtaDim.${AXES[i]}`, 1, undefined, where);
    requireInt(limits.maxGridDim?.[i], `launchLimits.maxGridDim.${AXES[i]}`, 1, undefined, where);
  }
}

function validateResources(k: KernelResources, where: SourceLocation): void {
  requireInt(k.threadsPerCta, 'kernel.threadsPerCta', 1, undefined, where);
  requireInt(k.registersPerThread, 'kernel.registersPerThread', 0, undefined, where);
  requireInt(k.sharedMemPerCta, 'kernel.sharedMemPerCta', 0, undefined, where);
}

/** Registers allocated to one CTA and per warp under the SM's allocation rules. */
function registerAllocation(limits: SmLimits, warpsPerCta: number, regsPerThread: number): { perWarp: number; perCta: number } {
  if (regsPerThread === 0) return { perWarp: 0, perCta: 0 };
  if (limits.registerAllocation === 'warp') {
    const perWarp = ceilTo(regsPerThread * limits.warpSize, limits.registerAllocUnit);
    return { perWarp, perCta: perWarp * warpsPerCta };
  }
  const perCta = ceilTo(ceilTo(warpsPerCta, limits.warpAllocGranularity) * limits.warpSize * regsPerThread, limits.registerAllocUnit);
  return { perWarp: 0, perCta };
}

/**
 * CTAs of a kernel that fit on one SM at once, and which resource limits them (CUDA Occupancy
 * Calculator; see the module comment for the register rules).
 *
 * @param limits the SM.
 * @param kernel what one CTA uses.
 * @param where file the values came from, for errors.
 * @throws InputError for a non-integer or out-of-range value.
 */
export function occupancy(limits: SmLimits, kernel: KernelResources, where: SourceLocation = PARAMS_LOCATION): OccupancyResult {
  validateSmLimits(limits, where);
  validateResources(kernel, where);
  const w = limits.warpSize;
  const b = Math.ceil(kernel.threadsPerCta / w);
  const byThreads = Math.min(Math.floor(limits.maxWarpsPerSm / b), Math.floor(limits.maxThreadsPerSm / (b * w)));
  const byCtaSlots = limits.maxCtasPerSm;

  const regs = registerAllocation(limits, b, kernel.registersPerThread);
  let byRegisters = Infinity;
  if (regs.perCta > 0) {
    if (limits.registerAllocation === 'warp') {
      const warps = floorTo(Math.floor(limits.registersPerSm / regs.perWarp), limits.warpAllocGranularity);
      byRegisters = Math.floor(warps / b);
    } else {
      byRegisters = Math.floor(limits.registersPerSm / regs.perCta);
    }
  }

  const smem = kernel.sharedMemPerCta > 0 ? ceilTo(kernel.sharedMemPerCta, limits.sharedMemAllocUnit) : 0;
  const bySharedMem = smem > 0 ? Math.floor(limits.sharedMemPerSm / smem) : Infinity;

  const ctasPerSm = Math.min(byThreads, byCtaSlots, byRegisters, bySharedMem);
  const limiters: OccupancyLimiter[] = [];
  if (byThreads === ctasPerSm) limiters.push('threads');
  if (byCtaSlots === ctasPerSm) limiters.push('ctaSlots');
  if (byRegisters === ctasPerSm) limiters.push('registers');
  if (bySharedMem === ctasPerSm) limiters.push('sharedMem');
  const activeWarps = ctasPerSm * b;
  return {
    ctasPerSm,
    limitedBy: limiters[0]!,
    limiters,
    byThreads,
    byCtaSlots,
    byRegisters,
    bySharedMem,
    warpsPerCta: b,
    registersPerWarp: regs.perWarp,
    registersPerCta: regs.perCta,
    sharedMemPerCta: smem,
    activeWarps,
    occupancy: activeWarps / limits.maxWarpsPerSm,
  };
}

// ---------------------------------------------------------------------------------------------
// GPUDIAG N_slot (003 eq. 3.3)
// ---------------------------------------------------------------------------------------------

/** State-buffer sizes of 003 §3.1.2 (Fig. 3.1). */
export interface StateBuffers {
  /** N_1: barrier buffer entries (CTA slots). */
  readonly barrierSlots: number;
  /** N_2: warp slot buffer entries. */
  readonly warpSlots: number;
  /** S: shared memory, bytes. */
  readonly sharedMem: number;
  /** s_min: shared memory allocation granularity, bytes. */
  readonly sharedMemUnit: number;
  /** R_i: registers of each type i (one entry on NVIDIA; scalar and vector on AMD). */
  readonly registers: readonly number[];
  /** r_i,min: register allocation granularity of each type, registers. */
  readonly registerUnits: readonly number[];
}

/** A kernel's usage in 003's terms. */
export interface StateBufferUsage {
  /** b: warps per CTA. Integer >= 1. */
  readonly warpsPerCta: number;
  /** s: shared memory per CTA, bytes. Integer >= 0. */
  readonly sharedMemPerCta: number;
  /** r_i: registers of each type per warp (same length as {@link StateBuffers.registers}). */
  readonly registersPerWarp: readonly number[];
}

/** The four terms of eq. 3.3. */
export type NSlotLimiter = 'barrierSlots' | 'warpSlots' | 'sharedMem' | 'registers';

/** Result of {@link nSlot}. */
export interface NSlotResult {
  /** N_slot. */
  readonly nSlot: number;
  /** The term attaining the minimum (ties: the first in `barrierSlots, warpSlots, sharedMem, registers`). */
  readonly limitedBy: NSlotLimiter;
  /** When {@link limitedBy} is `registers`: the register type i; otherwise -1. */
  readonly registerType: number;
}

/**
 * GPUDIAG eq. 3.3:
 * `N_slot = min(N_1, floor(N_2 / b), floor(S / ceil(s, s_min)), min_i floor(R_i / (b x ceil(r_i, r_i,min))))`.
 * The printed eq. 3.3 omits the factor b in the register term; eq. 3.11 of the same section
 * (the register-file test) has it, and a CTA does hold b warps' registers, so it is included.
 * A zero usage (s = 0, r_i = 0) does not limit. Unlike the occupancy calculator there is no warp
 * allocation granularity, so the two can differ by one CTA (see {@link occupancy}).
 *
 * @throws InputError for a non-integer or negative value, or mismatched register-type counts.
 */
export function nSlot(buffers: StateBuffers, usage: StateBufferUsage, where: SourceLocation = PARAMS_LOCATION): NSlotResult {
  requireInt(buffers.barrierSlots, 'stateBuffers.barrierSlots', 1, undefined, where);
  requireInt(buffers.warpSlots, 'stateBuffers.warpSlots', 1, undefined, where);
  requireInt(buffers.sharedMem, 'stateBuffers.sharedMem', 0, undefined, where);
  requireInt(buffers.sharedMemUnit, 'stateBuffers.sharedMemUnit', 1, undefined, where);
  const b = requireInt(usage.warpsPerCta, 'usage.warpsPerCta', 1, undefined, where);
  const s = requireInt(usage.sharedMemPerCta, 'usage.sharedMemPerCta', 0, undefined, where);
  const types = buffers.registers.length;
  if (buffers.registerUnits.length !== types || usage.registersPerWarp.length !== types) {
    throw new InputError(where, `expected ${types} register types in registerUnits and registersPerWarp`, 'usage.registersPerWarp');
  }
  let nSlotValue = buffers.barrierSlots;
  let limitedBy: NSlotLimiter = 'barrierSlots';
  let registerType = -1;
  const byWarps = Math.floor(buffers.warpSlots / b);
  if (byWarps < nSlotValue) {
    nSlotValue = byWarps;
    limitedBy = 'warpSlots';
  }
  if (s > 0) {
    const bySmem = Math.floor(buffers.sharedMem / ceilTo(s, buffers.sharedMemUnit));
    if (bySmem < nSlotValue) {
      nSlotValue = bySmem;
      limitedBy = 'sharedMem';
    }
  }
  for (let i = 0; i < types; i++) {
    const r = requireInt(usage.registersPerWarp[i], `usage.registersPerWarp[${i}]`, 0, undefined, where);
    const R = requireInt(buffers.registers[i], `stateBuffers.registers[${i}]`, 0, undefined, where);
    const unit = requireInt(buffers.registerUnits[i], `stateBuffers.registerUnits[${i}]`, 1, undefined, where);
    if (r === 0) continue;
    const byRegs = Math.floor(R / (b * ceilTo(r, unit)));
    if (byRegs < nSlotValue) {
      nSlotValue = byRegs;
      limitedBy = 'registers';
      registerType = i;
    }
  }
  return { nSlot: nSlotValue, limitedBy, registerType };
}

/** The state buffers of an SM in 003's terms (one register type). */
export function stateBuffersOf(limits: SmLimits): StateBuffers {
  return {
    barrierSlots: limits.maxCtasPerSm,
    warpSlots: limits.maxWarpsPerSm,
    sharedMem: limits.sharedMemPerSm,
    sharedMemUnit: limits.sharedMemAllocUnit,
    registers: [limits.registersPerSm],
    registerUnits: [limits.registerAllocUnit],
  };
}

/** A kernel's usage in 003's terms: b = ceil(B / w), r = registers per thread x w. */
export function stateBufferUsageOf(limits: SmLimits, kernel: KernelResources): StateBufferUsage {
  return {
    warpsPerCta: Math.ceil(kernel.threadsPerCta / limits.warpSize),
    sharedMemPerCta: kernel.sharedMemPerCta,
    registersPerWarp: [kernel.registersPerThread * limits.warpSize],
  };
}

// ---------------------------------------------------------------------------------------------
// Limit checker (003 eq. 3.1)
// ---------------------------------------------------------------------------------------------

/** A kernel launch as the limit checker sees it. */
export interface LaunchRequest {
  /** Grid dimensions (1 to 3 values; missing ones are 1). Each an integer >= 1. */
  readonly gridDim: readonly number[];
  /** CTA dimensions (1 to 3 values; missing ones are 1). Each an integer >= 1. */
  readonly ctaDim: readonly number[];
  /** Registers per thread. Integer >= 0. */
  readonly registersPerThread: number;
  /** Shared memory per CTA, static + dynamic, bytes. Integer >= 0. */
  readonly sharedMemPerCta: number;
}

/**
 * The limits {@link checkLaunch} can report: the rows of eq. 3.1 (`threadsPerCta` L(T/B),
 * `threadsPerGrid` L(T/G), `sharedMemPerCta` L(S/B), `registersPerThread` L(R/T),
 * `registersPerCta` L(R/B)), the CUDA dimension limits, and "one CTA must fit an SM"
 * (`warpsPerSm`, `threadsPerSm`, `registersPerSm`, `sharedMemPerSm`).
 */
export type LaunchLimit =
  | 'threadsPerCta'
  | 'ctaDim.x'
  | 'ctaDim.y'
  | 'ctaDim.z'
  | 'gridDim.x'
  | 'gridDim.y'
  | 'gridDim.z'
  | 'threadsPerGrid'
  | 'sharedMemPerCta'
  | 'registersPerThread'
  | 'registersPerCta'
  | 'warpsPerSm'
  | 'threadsPerSm'
  | 'registersPerSm'
  | 'sharedMemPerSm';

/** A refused launch: which limit, the launch's value and the maximum (same units). */
export interface LaunchViolation {
  readonly ok: false;
  readonly limit: LaunchLimit;
  /** The launch's value (threads, bytes, registers, or a dimension). */
  readonly value: number;
  /** The largest allowed value. */
  readonly max: number;
  /** One-line explanation. */
  readonly message: string;
}

/** Result of {@link checkLaunch}. */
export type LaunchCheck = { readonly ok: true } | LaunchViolation;

const AXES = ['x', 'y', 'z'] as const;

function dims(values: readonly number[], field: string, where: SourceLocation): [number, number, number] {
  if (!Array.isArray(values) || values.length < 1 || values.length > 3) {
    throw new InputError(where, 'expected 1 to 3 dimensions', field);
  }
  const out: [number, number, number] = [1, 1, 1];
  for (let i = 0; i < values.length; i++) out[i] = requireInt(values[i], `${field}.${AXES[i]}`, 1, undefined, where);
  return out;
}

function violation(limit: LaunchLimit, value: number, max: number, what: string): LaunchViolation {
  return { ok: false, limit, value, max, message: `launch refused: ${what} ${value} exceeds the limit ${max} (${limit})` };
}

/**
 * GPUDIAG's limit checker (003 eq. 3.1), extended with "one CTA must fit an SM":
 * 1. B <= L(T/B); each CTA dimension <= its maximum; each grid dimension <= its maximum;
 *    B x G <= L(T/G);
 * 2. ceil(s, s_min) <= L(S/B);
 * 3. r <= L(R/T) (registers per thread) and the registers one CTA is allocated
 *    (b x ceil(r x w, r_min) for `warp` granularity) <= L(R/B);
 * 4. b <= warps per SM, B <= threads per SM, the CTA's registers fit the SM's register file with
 *    the warp allocation granularity (occupancy by registers >= 1), ceil(s, s_min) <= S.
 * The first broken limit, in this order, is reported.
 *
 * @throws InputError for a malformed request (non-integer, zero dimension, negative usage).
 */
export function checkLaunch(limits: GpuLimits, launch: LaunchRequest, where: SourceLocation = PARAMS_LOCATION): LaunchCheck {
  validateSmLimits(limits, where);
  validateLaunchLimits(limits, where);
  const grid = dims(launch.gridDim, 'launch.gridDim', where);
  const cta = dims(launch.ctaDim, 'launch.ctaDim', where);
  const r = requireInt(launch.registersPerThread, 'launch.registersPerThread', 0, undefined, where);
  const s = requireInt(launch.sharedMemPerCta, 'launch.sharedMemPerCta', 0, undefined, where);
  const B = cta[0] * cta[1] * cta[2];
  const G = grid[0] * grid[1] * grid[2];
  const w = limits.warpSize;
  const b = Math.ceil(B / w);

  if (B > limits.maxThreadsPerCta) return violation('threadsPerCta', B, limits.maxThreadsPerCta, 'threads per CTA');
  for (let i = 0; i < 3; i++) {
    if (cta[i]! > limits.maxCtaDim[i]!) return violation(`ctaDim.${AXES[i]}`, cta[i]!, limits.maxCtaDim[i]!, `CTA dimension ${AXES[i]}`);
  }
  for (let i = 0; i < 3; i++) {
    if (grid[i]! > limits.maxGridDim[i]!) return violation(`gridDim.${AXES[i]}`, grid[i]!, limits.maxGridDim[i]!, `grid dimension ${AXES[i]}`);
  }
  if (B * G > limits.maxThreadsPerGrid) return violation('threadsPerGrid', B * G, limits.maxThreadsPerGrid, 'threads per grid');
  const smem = s > 0 ? ceilTo(s, limits.sharedMemAllocUnit) : 0;
  if (smem > limits.maxSharedMemPerCta) return violation('sharedMemPerCta', smem, limits.maxSharedMemPerCta, 'shared memory per CTA (bytes, allocated)');
  if (r > limits.maxRegistersPerThread) return violation('registersPerThread', r, limits.maxRegistersPerThread, 'registers per thread');
  const regs = registerAllocation(limits, b, r);
  if (regs.perCta > limits.maxRegistersPerCta) return violation('registersPerCta', regs.perCta, limits.maxRegistersPerCta, 'registers per CTA (allocated)');

  if (b > limits.maxWarpsPerSm) return violation('warpsPerSm', b, limits.maxWarpsPerSm, 'warps per CTA');
  if (b * w > limits.maxThreadsPerSm) return violation('threadsPerSm', b * w, limits.maxThreadsPerSm, 'threads per CTA (whole warps)');
  if (regs.perCta > 0) {
    const fits = occupancy(limits, { threadsPerCta: B, registersPerThread: r, sharedMemPerCta: 0 }, where).byRegisters >= 1;
    if (!fits) {
      const usable = limits.registerAllocation === 'warp'
        ? floorTo(Math.floor(limits.registersPerSm / regs.perWarp), limits.warpAllocGranularity) * regs.perWarp
        : limits.registersPerSm;
      return violation('registersPerSm', regs.perCta, usable, 'registers per CTA (allocated)');
    }
  }
  if (smem > limits.sharedMemPerSm) return violation('sharedMemPerSm', smem, limits.sharedMemPerSm, 'shared memory per CTA (bytes, allocated)');
  return { ok: true };
}

/**
 * {@link checkLaunch}, throwing when the launch is impossible.
 *
 * @throws SimulationError whose `details` is the {@link LaunchViolation} (limit, value, max).
 * @throws InputError for a malformed request.
 */
export function assertLaunchFits(limits: GpuLimits, launch: LaunchRequest, where: SourceLocation = PARAMS_LOCATION): void {
  const result = checkLaunch(limits, launch, where);
  if (!result.ok) throw new SimulationError(result.message, result);
}
