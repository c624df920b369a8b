/**
 * Host reference of `scenarios/kernels/histogram-global.cu`: for every i < n,
 * `bins[data[i] mod numBins] += 1` (modulo 2^32). Counting is order-independent, so the
 * kernel's contended global atomics give exactly this whatever their order.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(u32* data, u32* bins, unsigned n, unsigned numBins)`; 1D launch (any CTA,
 * grid-stride). Exact.
 *
 * Throws InputError for numBins = 0 with n > 0 (`rem.u32` by zero) or buffers too small.
 */
export const histogramGlobal: KernelReference = (input) =>
  runLaunches('histogram_global', input, (launch) => {
    launch.expectArgCount(4);
    launch.dims1D();
    const n = launch.u32(2);
    const numBins = launch.u32(3);
    if (n > 0 && numBins === 0) launch.fail('numBins must be at least 1', 'args[3]');
    const data = launch.buffer(0, 'u32', n);
    const bins = launch.buffer(1, 'u32', n > 0 ? numBins : 0);
    if (n > 0 && launch.bufferName(0) === launch.bufferName(1)) launch.fail('data and bins must be different buffers', 'args[1]');
    for (let i = 0; i < n; i++) {
      const b = data[i]! % numBins;
      bins[b] = (bins[b]! + 1) >>> 0;
    }
  });
