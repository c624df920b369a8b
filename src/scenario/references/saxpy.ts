/**
 * Host reference of `scenarios/kernels/saxpy.cu`: `y[i] = a * x[i] + y[i]` for every `i < n`
 * (grid-stride loop, so any 1D launch covers all of n). nvcc contracts the expression to one
 * `fma.rn.f32` (see saxpy.ptx), so the reference uses a single-rounding fused multiply-add.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Arguments `(unsigned n, f32 a, f32* x, f32* y)`; 1D launch. Exact (0 ULP). */
export const saxpy: KernelReference = (input) =>
  runLaunches('saxpy', input, (launch) => {
    launch.expectArgCount(4);
    launch.dims1D();
    const n = launch.u32(0);
    const a = launch.f32(1);
    const x = launch.buffer(2, 'f32', n);
    const y = launch.buffer(3, 'f32', n);
    for (let i = 0; i < n; i++) y[i] = fmaF32(a, x[i]!, y[i]!);
  });
