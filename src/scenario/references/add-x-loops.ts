/**
 * Host reference of `scenarios/kernels/add-x-loops.cu`, the compute-bound microbenchmark of
 * papers/000 §5.3.1: thread i (< n) scales `a[i]` and `b[i]` by `factor` once per iteration for
 * `loops` iterations, each product rounded to binary32 (`mul.f32`, no contraction: see the PTX),
 * then stores their binary32 sum in `c[i]`.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Arguments `(f32* a, f32* b, f32* c, f32 factor, int loops, int n)`; 1D launch. Exact (0 ULP). */
export const addXLoops: KernelReference = (input) =>
  runLaunches('add_x_loops', input, (launch) => {
    launch.expectArgCount(6);
    const { threads } = launch.dims1D();
    const factor = launch.f32(3);
    const loops = launch.s32(4);
    const n = launch.s32(5);
    const count = Math.max(0, Math.min(n, threads));
    const a = launch.buffer(0, 'f32', count);
    const b = launch.buffer(1, 'f32', count);
    const c = launch.buffer(2, 'f32', count);
    for (let i = 0; i < count; i++) {
      let u = a[i]!;
      let v = b[i]!;
      for (let k = 0; k < loops; k++) {
        u = Math.fround(u * factor);
        v = Math.fround(v * factor);
      }
      c[i] = u + v;
    }
  });
