/**
 * Host reference of `scenarios/kernels/reduce-smem.cu`: per-CTA binary32 sums in the kernel's
 * exact order of additions, so the result matches bit for bit.
 *
 * With T = gridDim.x * blockDim.x, thread t of CTA b first sums `in[i]` for
 * i = b * blockDim.x + t, + T, + 2T, ... < n (left to right, from 0.0f); then for
 * s = floor(blockDim.x / 2), floor(s / 2), ..., 1 every slot t < s becomes slot t + slot t + s;
 * slot 0 is stored in `out[b]`. (For a blockDim.x that is not a power of two the kernel drops
 * slots, and so does this reference.)
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Arguments `(f32* in, f32* out, unsigned n)`; 1D launch, dynamic shared memory 4 * blockDim.x bytes. Exact. */
export const reduceSmem: KernelReference = (input) =>
  runLaunches('reduce_smem', input, (launch) => {
    launch.expectArgCount(3);
    const { gridX, blockX, threads } = launch.dims1D();
    const n = launch.u32(2);
    const src = launch.buffer(0, 'f32', n);
    const out = launch.buffer(1, 'f32', gridX);
    if (launch.bufferName(0) === launch.bufferName(1)) launch.fail('in and out must be different buffers (CTAs would race)', 'args[1]');
    const slots = new Float64Array(blockX);
    for (let b = 0; b < gridX; b++) {
      for (let t = 0; t < blockX; t++) {
        let sum = 0;
        for (let i = b * blockX + t; i < n; i += threads) sum = Math.fround(sum + src[i]!);
        slots[t] = sum;
      }
      for (let s = blockX >>> 1; s > 0; s >>>= 1) {
        for (let t = 0; t < s; t++) slots[t] = Math.fround(slots[t]! + slots[t + s]!);
      }
      out[b] = slots[0]!;
    }
  });
