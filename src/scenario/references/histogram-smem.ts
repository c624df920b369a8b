/**
 * Host reference of `scenarios/kernels/histogram-smem.cu`: `bins[v] += (number of i < n with
 * data[i] = v)` for the 256 byte values, modulo 2^32. Counting is order-independent, so the
 * kernel's shared and global atomics give exactly this.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Number of bins (`NUM_BINS` in the kernel). */
export const HISTOGRAM_BINS = 256;

/** Arguments `(u8* data, u32* bins, unsigned n)`; 1D launch; bins has 256 elements. Exact. */
export const histogramSmem: KernelReference = (input) =>
  runLaunches('histogram_smem', input, (launch) => {
    launch.expectArgCount(3);
    launch.dims1D();
    const n = launch.u32(2);
    const data = launch.buffer(0, 'u8', n);
    const bins = launch.buffer(1, 'u32', HISTOGRAM_BINS);
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      bins[v] = (bins[v]! + 1) >>> 0;
    }
  });
