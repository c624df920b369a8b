/**
 * Host reference of `scenarios/kernels/vecadd.cu`: `c[i] = a[i] + b[i]` (binary32) for every
 * `i < n` that the 1D launch covers (thread i = blockIdx.x * blockDim.x + threadIdx.x).
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Arguments `(f32* a, f32* b, f32* c, int n)`; 1D launch. Exact (0 ULP). */
export const vecadd: KernelReference = (input) =>
  runLaunches('vecadd', input, (launch) => {
    launch.expectArgCount(4);
    const { threads } = launch.dims1D();
    const n = launch.s32(3);
    const count = Math.max(0, Math.min(n, threads));
    const a = launch.buffer(0, 'f32', count);
    const b = launch.buffer(1, 'f32', count);
    const c = launch.buffer(2, 'f32', count);
    for (let i = 0; i < count; i++) c[i] = a[i]! + b[i]!; // the Float32Array store rounds once
  });
