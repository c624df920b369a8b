/**
 * Host reference of `scenarios/kernels/phase-long4.cu`, the type B synthetic kernel of the
 * warp-scheduling verification (papers/000 §3.3.3.2, CFD shape; specs/warp-level.md §7).
 *
 * With T = gridDim.x * blockDim.x threads, thread g keeps a binary32 phase value `v = 0`; each
 * step `s < steps` reads `x_j = X[p + j*T]` for j = 0..3, where `p = (4s*T + g + off) mod 2^32`
 * and `off` is the bits of `v` (binary32) AND `mask`; then, from `t = v`, it applies
 * {@link PHASE_LONG4_LEN} steps `t = fma(t, 0.999f, 0.001f)` (nvcc contracts `t * 0.999f +
 * 0.001f` to one `fma.rn.f32`, so each step rounds once: {@link fmaF32}) and sets
 * `v = t + ((x0 + x1) + (x2 + x3))` (binary32 adds in that order).
 * The thread stores `v` in `out[g]`.
 */
import { f32Bits, fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Dependent fma steps per phase (`PHASE_LEN` in the kernel). */
export const PHASE_LONG4_LEN = 48;
/** The binary32 constants of the step, `0.999f` (0x3f7fbe77) and `0.001f` (0x3a83126f). */
const SCALE = Math.fround(0.999);
const OFFSET = Math.fround(0.001);

/**
 * Arguments `(f32* X, f32* out, int steps, unsigned mask)`; 1D launch. Exact (0 ULP).
 * `X` must hold `4 * steps * T` elements plus whatever the masked offsets reach, `out` T.
 */
export const phaseLong4: KernelReference = (input) =>
  runLaunches('phase_long4', input, (launch) => {
    launch.expectArgCount(4);
    const { threads } = launch.dims1D();
    const steps = Math.max(0, launch.s32(2));
    const mask = launch.u32(3);
    const X = launch.buffer(0, 'f32', 4 * steps * threads);
    const out = launch.buffer(1, 'f32', threads);
    const load = (i: number): number => {
      if (i >= X.length) launch.requireLength(0, i + 1);
      return X[i]!;
    };
    for (let g = 0; g < threads; g++) {
      let v = 0;
      for (let s = 0; s < steps; s++) {
        // The phase's pointer: a u32 element index (wraps modulo 2^32), then 64-bit steps of T.
        const base = (4 * s * threads + g + ((f32Bits(v) & mask) >>> 0)) >>> 0;
        const x0 = load(base);
        const x1 = load(base + threads);
        const x2 = load(base + 2 * threads);
        const x3 = load(base + 3 * threads);
        let t = v;
        for (let k = 0; k < PHASE_LONG4_LEN; k++) t = fmaF32(t, SCALE, OFFSET);
        v = Math.fround(t + Math.fround(Math.fround(x0 + x1) + Math.fround(x2 + x3)));
      }
      out[g] = v;
    }
  });
