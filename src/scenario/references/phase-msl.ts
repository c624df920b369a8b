/**
 * Host reference of `scenarios/kernels/phase-msl.cu`, the type A synthetic kernel of the
 * warp-scheduling verification (papers/000 Fig. 3.3(a), §3.3.3.2; specs/warp-level.md §7).
 *
 * With T = gridDim.x * blockDim.x threads, thread g keeps a running value `run = g` and an
 * accumulator `acc = 0`; each iteration `it < iters` loads `a = A[it*T + g]`, applies
 * {@link PHASE_MSL_MEDIUM} mix steps to `run`, loads `b = B[it*T + g + (a & mask)]`, applies
 * {@link PHASE_MSL_LONG} mix steps to `b ^ run` and adds the result into `acc` (all arithmetic
 * modulo 2^32, as the kernel's `unsigned int`). The thread stores `acc` in `out[g]`.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Mix steps of the medium phase (`PHASE_MEDIUM` in the kernel). */
export const PHASE_MSL_MEDIUM = 12;
/** Mix steps of the long phase (`PHASE_LONG` in the kernel). */
export const PHASE_MSL_LONG = 48;
/** Odd multiplier of the medium phase's mix step. */
const MEDIUM_MUL = 0x2c1b3c6d;
/** Odd multiplier of the long phase's mix step. */
const LONG_MUL = 0x297a2d39;

/**
 * One medium-phase mix step of the kernel: `v ^= v >> 15; v *= 0x2c1b3c6d` on a u32.
 * @param v a u32 value (0 to 2^32 - 1)
 * @returns the mixed u32 value
 */
export function mixMedium(v: number): number {
  const s = (v ^ (v >>> 15)) >>> 0;
  return Math.imul(s, MEDIUM_MUL) >>> 0;
}

/**
 * One long-phase mix step of the kernel: `v ^= v >> 13; v *= 0x297a2d39` on a u32.
 * @param v a u32 value (0 to 2^32 - 1)
 * @returns the mixed u32 value
 */
export function mixLong(v: number): number {
  const s = (v ^ (v >>> 13)) >>> 0;
  return Math.imul(s, LONG_MUL) >>> 0;
}

/**
 * Arguments `(u32* A, u32* B, u32* out, int iters, unsigned mask)`; 1D launch. Exact.
 * `A` must hold `iters * T` elements, `B` every element the masked offsets reach, `out` T.
 */
export const phaseMsl: KernelReference = (input) =>
  runLaunches('phase_msl', input, (launch) => {
    launch.expectArgCount(5);
    const { threads } = launch.dims1D();
    const iters = Math.max(0, launch.s32(3));
    const mask = launch.u32(4);
    const A = launch.buffer(0, 'u32', iters * threads);
    const B = launch.buffer(1, 'u32', iters * threads);
    const out = launch.buffer(2, 'u32', threads);
    for (let g = 0; g < threads; g++) {
      let run = g;
      let acc = 0;
      for (let it = 0; it < iters; it++) {
        const row = it * threads + g;
        const a = A[row]!;
        for (let k = 0; k < PHASE_MSL_MEDIUM; k++) run = mixMedium(run);
        const bIndex = (row + ((a & mask) >>> 0)) >>> 0;
        if (bIndex >= B.length) launch.requireLength(1, bIndex + 1);
        let x = (B[bIndex]! ^ run) >>> 0;
        for (let k = 0; k < PHASE_MSL_LONG; k++) x = mixLong(x);
        acc = (acc + x) >>> 0;
      }
      out[g] = acc;
    }
  });
