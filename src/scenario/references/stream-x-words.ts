/**
 * Host reference of `scenarios/kernels/stream-x-words.cu`, the memory-bound microbenchmark of
 * papers/000 §5.3.2: with T = gridDim.x * blockDim.x threads, thread g copies words
 * `k * T + g` for `k < min(words, 8)` from `src` to `dst`, i.e. the first `min(words, 8) * T`
 * words are copied.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Most words one thread streams (`STREAM_MAX_WORDS` in the kernel). */
export const STREAM_MAX_WORDS = 8;

/** Arguments `(u32* src, u32* dst, int words)`; 1D launch. Exact. */
export const streamXWords: KernelReference = (input) =>
  runLaunches('stream_x_words', input, (launch) => {
    launch.expectArgCount(3);
    const { threads } = launch.dims1D();
    const words = Math.max(0, Math.min(launch.s32(2), STREAM_MAX_WORDS));
    const total = words * threads;
    const src = launch.buffer(0, 'u32', total);
    const dst = launch.buffer(1, 'u32', total);
    for (let i = 0; i < total; i++) dst[i] = src[i]!;
  });
