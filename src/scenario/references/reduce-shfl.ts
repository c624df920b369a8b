/**
 * Host reference of `scenarios/kernels/reduce-shfl.cu`: `total[0] += in[0] + ... + in[n - 1]`
 * modulo 2^32. Integer addition is associative, so the order of the kernel's warp-shuffle tree
 * and of its global atomics does not matter.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(u32* in, u32* total, unsigned n)`; 1D launch with blockDim.x a multiple of 32, at
 * most 1024 (full-warp shuffles, 32 warp sums in shared memory). Exact.
 */
export const reduceShfl: KernelReference = (input) =>
  runLaunches('reduce_shfl', input, (launch) => {
    launch.expectArgCount(3);
    const { blockX } = launch.dims1D();
    if (blockX % 32 !== 0 || blockX > 1024) launch.fail(`blockDim.x must be a multiple of 32 up to 1024, got ${blockX}`, 'block');
    const n = launch.u32(2);
    const src = launch.buffer(0, 'u32', n);
    const total = launch.buffer(1, 'u32', 1);
    let sum = total[0]!;
    for (let i = 0; i < n; i++) sum = (sum + src[i]!) >>> 0;
    total[0] = sum;
  });
