/**
 * Host reference of `scenarios/kernels/l1i-bigcode.cu`, the kernel whose loop body is larger
 * than a 2 KiB L1I (papers/004 §3.4 next-line instruction prefetch; specs/warp-level.md §2.11
 * item 5).
 *
 * With T = gridDim.x * blockDim.x threads, thread g starts with `x = g`; each iteration
 * `it < iters` runs {@link BIGCODE_CHUNKS} chunks, chunk c doing `x ^= in[(4*it + c)*T + g]`
 * then {@link BIGCODE_STEPS} mix steps `x ^= x >> (7 + 2c); x *= 0x9e3779b1` (modulo 2^32).
 * The thread stores `x` in `out[g]`.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Chunks per iteration (`BIG_CHUNKS` in the kernel), one load each. */
export const BIGCODE_CHUNKS = 4;
/** Mix steps per chunk (`BIG_STEPS` in the kernel). */
export const BIGCODE_STEPS = 40;
/** Odd multiplier of the mix step (2^32 / golden ratio). */
const MUL = 0x9e3779b1;

/**
 * One mix step of chunk `c`: `v ^= v >> (7 + 2c); v *= 0x9e3779b1` on a u32.
 * @param v a u32 value
 * @param c chunk index (0 to {@link BIGCODE_CHUNKS} - 1)
 * @returns the mixed u32 value
 */
export function mixBigcode(v: number, c: number): number {
  const s = (v ^ (v >>> (7 + 2 * c))) >>> 0;
  return Math.imul(s, MUL) >>> 0;
}

/** Arguments `(u32* in, u32* out, int iters)`; 1D launch. Exact. `in` holds `4 * iters * T` elements, `out` T. */
export const l1iBigcode: KernelReference = (input) =>
  runLaunches('l1i_bigcode', input, (launch) => {
    launch.expectArgCount(3);
    const { threads } = launch.dims1D();
    const iters = Math.max(0, launch.s32(2));
    const src = launch.buffer(0, 'u32', BIGCODE_CHUNKS * iters * threads);
    const out = launch.buffer(1, 'u32', threads);
    for (let g = 0; g < threads; g++) {
      let x = g;
      for (let it = 0; it < iters; it++) {
        for (let c = 0; c < BIGCODE_CHUNKS; c++) {
          x = (x ^ src[(BIGCODE_CHUNKS * it + c) * threads + g]!) >>> 0;
          for (let k = 0; k < BIGCODE_STEPS; k++) x = mixBigcode(x, c);
        }
      }
      out[g] = x;
    }
  });
