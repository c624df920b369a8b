/**
 * Host reference of `scenarios/kernels/pointer-chase.cu`: starting from j = start, follow
 * j = next[j] `steps` times; `lastIndex[0]` = the final j and `indexSum[0]` = the sum of the
 * visited indices (start excluded) modulo 2^64. Any launch shape: one thread does the work.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(u32* next, unsigned start, unsigned steps, u32* lastIndex, u64* indexSum)`.
 * Exact. Throws InputError when the chain leaves `next`.
 */
export const pointerChase: KernelReference = (input) =>
  runLaunches('pointer_chase', input, (launch) => {
    launch.expectArgCount(5);
    const start = launch.u32(1);
    const steps = launch.u32(2);
    const next = launch.buffer(0, 'u32');
    const lastIndex = launch.buffer(3, 'u32', 1);
    const indexSum = launch.buffer(4, 'u64', 1);
    let j = start;
    let sum = 0n;
    for (let s = 0; s < steps; s++) {
      if (j >= next.length) launch.fail(`step ${s} reads next[${j}], past its ${next.length} elements`, 'args[0]');
      j = next[j]!;
      sum += BigInt(j);
    }
    lastIndex[0] = j;
    indexSum[0] = BigInt.asUintN(64, sum);
  });
