/**
 * Host reference of `scenarios/kernels/kmeans-assign.cu`: the k-means assignment step.
 *
 * For every point i < min(n, threads): the squared distance to centroid c is accumulated over
 * d = 0 .. dims - 1 as `diff = points[d * n + i] - centroids[c * dims + d]` (binary32 subtract),
 * `dist = fma(diff, diff, dist)` from 0 (the PTX's `sub.f32` + `fma.rn.f32`); the point takes
 * the first c whose distance is strictly below the best so far (starting from FLT_MAX, so
 * centroid 0 on a tie or when every distance is +inf/NaN). If `membership[i]` differs, it is
 * replaced and `changed[0]` grows by 1 (modulo 2^32: the kernel's `atom.global.add.u32`;
 * the count does not depend on the order of the atomics).
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Shared-memory capacity for centroids in floats (`MAX_CENTROID_FLOATS` in the kernel). */
export const KMEANS_MAX_CENTROID_FLOATS = 256;

/** FLT_MAX, the kernel's initial best distance (`3.402823466e38f`). */
const FLT_MAX = 3.4028234663852886e38;

/**
 * Arguments `(f32* points, f32* centroids, s32* membership, u32* changed, int n, int k,
 * int dims)`; 1D launch (any CTA). Exact.
 *
 * Throws InputError when k or dims is negative, k * dims exceeds the 256 shared floats (the
 * kernel would write past its shared array), or a buffer is too small. With k = 0 every point
 * is assigned centroid 0, as the kernel does.
 */
export const kmeansAssign: KernelReference = (input) =>
  runLaunches('kmeans_assign', input, (launch) => {
    launch.expectArgCount(7);
    const { threads } = launch.dims1D();
    const n = launch.s32(4);
    const k = launch.s32(5);
    const dims = launch.s32(6);
    const active = Math.max(0, Math.min(n, threads));
    if (k < 0) launch.fail(`k must not be negative, got ${k}`, 'args[5]');
    if (dims < 0) launch.fail(`dims must not be negative, got ${dims}`, 'args[6]');
    const floats = k * dims;
    if (floats > KMEANS_MAX_CENTROID_FLOATS) {
      launch.fail(`k * dims = ${floats} exceeds the kernel's ${KMEANS_MAX_CENTROID_FLOATS} shared floats`, 'args[5]');
    }
    const points = launch.buffer(0, 'f32', active > 0 && dims > 0 ? (dims - 1) * n + active : 0);
    const centroids = launch.buffer(1, 'f32', floats);
    const membership = launch.buffer(2, 's32', active);
    const changed = launch.buffer(3, 'u32', 1);
    for (let i = 0; i < active; i++) {
      let best = 0;
      let bestDist = FLT_MAX;
      for (let c = 0; c < k; c++) {
        let dist = 0;
        for (let d = 0; d < dims; d++) {
          const diff = Math.fround(points[d * n + i]! - centroids[c * dims + d]!);
          dist = fmaF32(diff, diff, dist);
        }
        if (dist < bestDist) {
          bestDist = dist;
          best = c;
        }
      }
      if (membership[i] !== best) {
        membership[i] = best;
        changed[0] = (changed[0]! + 1) >>> 0;
      }
    }
  });
