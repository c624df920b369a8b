/**
 * Host reference of `scenarios/kernels/dpoly.cu`, a binary64 kernel: for every i < n,
 * p = fma(fma(fma(c3, x, c2), x, c1), x, c0) and y[i] = sqrt(|p|) + p / fma(x, x, 1) (nvcc
 * contracts `1.0 + x * x` to `fma.rn.f64`, see the PTX). `sqrt.rn.f64`, `div.rn.f64` and
 * `add.f64` are correctly rounded, like JS's `Math.sqrt`, `/` and `+`.
 */
import { fmaF64 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Arguments `(unsigned n, f64 c0, f64 c1, f64 c2, f64 c3, f64* x, f64* y)`; 1D launch. Exact (0 ULP). */
export const dpoly: KernelReference = (input) =>
  runLaunches('dpoly', input, (launch) => {
    launch.expectArgCount(7);
    launch.dims1D();
    const n = launch.u32(0);
    const c0 = launch.f64(1);
    const c1 = launch.f64(2);
    const c2 = launch.f64(3);
    const c3 = launch.f64(4);
    const x = launch.buffer(5, 'f64', n);
    const y = launch.buffer(6, 'f64', n);
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      const p = fmaF64(fmaF64(fmaF64(c3, xi, c2), xi, c1), xi, c0);
      y[i] = Math.sqrt(Math.abs(p)) + p / fmaF64(xi, xi, 1);
    }
  });
