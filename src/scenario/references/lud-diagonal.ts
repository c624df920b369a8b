/**
 * Host reference of `scenarios/kernels/lud-diagonal.cu`: in-place LU factorisation without
 * pivoting of the 16 x 16 block at (offset, offset) of a matrixDim x matrixDim row-major
 * matrix, one launch per block.
 *
 * For k = 0 .. 14 and every row t > k: `a[t][k] = a[t][k] / a[k][k]` (`div.rn.f32`), then for
 * j > k `a[t][j] = a[t][j] - a[t][k] * a[k][j]` with the product and the difference each
 * rounded to binary32 (nvcc emits `mul.f32` + `sub.f32` here, not an fma). Step k reads only row
 * k, which it does not change, so doing the rows in order gives the kernel's values. The rest
 * of the matrix is untouched.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Block edge (`BS` in the kernel): the CTA has this many threads, one per row. */
export const LUD_BLOCK = 16;

/**
 * Arguments `(f32* m, int matrixDim, int offset)`; grid (1, 1, 1), block (16, 1, 1). Exact
 * (0 ULP).
 *
 * Throws InputError for another launch shape (more CTAs would race on the block), a negative
 * offset, a block reaching past column matrixDim, or a buffer too small for the block.
 */
export const ludDiagonal: KernelReference = (input) =>
  runLaunches('lud_diagonal', input, (launch) => {
    launch.expectArgCount(3);
    const { gridX, blockX } = launch.dims1D();
    if (gridX !== 1) launch.fail(`needs a grid of one CTA (CTAs would race on the block), got ${gridX}`, 'grid');
    if (blockX !== LUD_BLOCK) launch.fail(`needs a block of ${LUD_BLOCK} threads, got ${blockX}`, 'block');
    const dim = launch.s32(1);
    const offset = launch.s32(2);
    if (offset < 0) launch.fail(`offset must not be negative, got ${offset}`, 'args[2]');
    if (offset + LUD_BLOCK > dim) launch.fail(`the block at offset ${offset} reaches past matrixDim ${dim}`, 'args[2]');
    const base = offset * dim + offset;
    const m = launch.buffer(0, 'f32', base + (LUD_BLOCK - 1) * dim + LUD_BLOCK);
    const at = (r: number, c: number): number => base + r * dim + c;
    const f = Math.fround;
    for (let k = 0; k < LUD_BLOCK - 1; k++) {
      const pivot = m[at(k, k)]!;
      for (let t = k + 1; t < LUD_BLOCK; t++) {
        const l = f(m[at(t, k)]! / pivot);
        m[at(t, k)] = l;
        for (let j = k + 1; j < LUD_BLOCK; j++) m[at(t, j)] = f(m[at(t, j)]! - f(l * m[at(k, j)]!));
      }
    }
  });
